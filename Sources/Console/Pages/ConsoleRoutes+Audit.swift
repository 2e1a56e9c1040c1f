import Foundation
import HTTPEdge
import Hummingbird
import PushCore
import Reports

/// Audit (SPEC §9's audit report): who did what, from where, filtered by key kind, action and address.
extension ConsoleRoutes {
    func auditPage(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let chrome = try chrome(request, context, section: "audit")
        let document = try await run(.audit, request, context)
        let table = document.table
        let filters = ["keyKind", "action", "address"].compactMap { key in
            nonEmpty(request.query(key)).map { (key, $0) }
        }
        let index = Dictionary(uniqueKeysWithValues: table.columns.enumerated().map { ($1, $0) })
        let rows = table.rows.filter { row in
            filters.allSatisfy { key, wanted in index[key].map { row[$0].text.contains(wanted) } ?? true }
        }
        let shown = rows.suffix(500).reversed().map { row -> [String: Any] in
            func text(_ key: String) -> String { index[key].map { row[$0].text } ?? "" }
            return [
                "at": Shown.time(text("at")), "keyKind": text("keyKind"), "address": text("address"),
                "userAgent": text("userAgent"), "action": text("action"), "target": text("target"),
                "detail": String(text("detail").prefix(300)), "result": text("result"),
                "pushId": text("target").hasPrefix("push:") ? String(text("target").dropFirst(5)) : "",
            ]
        }
        var values: [String: Any] = [
            "rows": Array(shown), "count": rows.count, "total": table.rows.count,
            "from": request.query("from") ?? "", "to": request.query("to") ?? "",
            "keyKinds": ["", "master", "client", "system"].map { kind -> [String: Any] in
                [
                    "value": kind, "label": kind.isEmpty ? "any" : kind,
                    "selected": kind == (request.query("keyKind") ?? ""),
                ]
            },
            "action": request.query("action") ?? "",
            "address": request.query("address") ?? "", "subtitle": document.subtitle,
            "csv": Self.downloadLink(.audit, request),
        ]
        if rows.count > 500 { values["truncated"] = true }
        if rows.isEmpty {
            values["empty"] =
                table.rows.isEmpty
                ? "Nothing happened in this range. Widen the dates, or send a push to see it here."
                : "No event matches these filters. Clear them to see all \(table.rows.count)."
        }
        return pages.page("audit", title: "Audit", values, chrome: chrome)
    }
}
