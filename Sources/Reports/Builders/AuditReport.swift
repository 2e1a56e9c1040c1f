import Ledger
import Postgres
import PushCore

/// Audit (SPEC §9): who did what, when, with what result, in log order, with secrets redacted.
enum AuditReport {
    /// `requestId` (the `X-Request-Id` of the API call that caused the event) was added last, so scripts that
    /// read columns by position keep working.
    static let columns = ["at", "keyKind", "address", "userAgent", "action", "target", "detail", "result", "requestId"]

    static func build(_ context: ReportContext) async throws -> ReportDocument {
        let bounds = try await AuditScanBounds.find(context)
        let rows = try await ReportDefinitions.run(
            "audit", binds: context.binds + [bounds.scanFrom, bounds.lookupsFrom], on: context.pool)
        let table = try rows.map { row -> [ReportValue] in
            let action = try row.string("action")
            let detail = try row.json("detail")
            return [
                .text(try row.string("at")), .text(try row.string("key_kind")), text(row["address"]),
                text(row["user_agent"]), .text(action), .text(try row.string("target")),
                .object(AuditRedaction.redact(detail, action: action)), text(row["result"]), text(row["request_id"]),
            ]
        }
        return ReportDocument(
            title: "Audit — \(context.appId)", subtitle: context.subtitle, tableTitle: "Events in log order",
            table: ReportTable(columns: columns, rows: table))
    }

    private static func text(_ value: String?) -> ReportValue { value.map { .text($0) } ?? .null }
}
