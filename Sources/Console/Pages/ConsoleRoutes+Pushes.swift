import Foundation
import HTTPEdge
import Hummingbird
import Ledger
import PushCore

/// Push records: the filtered list, one record's detail with its timeline, and cancelling.
extension ConsoleRoutes {
    static let pageSize = 50

    func pushList(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        let chrome = try chrome(request, context, section: "pushes")
        var filter = PushListFilter()
        var notes: [String] = []
        if let status = nonEmpty(request.query("status")) {
            guard let parsed = PushListFilter.Status(rawValue: status) else {
                throw LeanError.invalidParameter("Unknown status \(status).")
            }
            filter.status = parsed
        }
        filter.from = try nonEmpty(request.query("from")).map { try Self.day($0, "from") }
        filter.to = try nonEmpty(request.query("to")).map { try Self.day($0, "to").addingTimeInterval(86_400) }
        // Bounded, so that no page number can overflow the offset.
        let page = min(max(0, Int(request.query("page") ?? "") ?? 0), 1_000_000)
        let records = try await services.pushQueries.list(
            appId: app.appId, filter: filter, limit: Self.pageSize + 1, skip: page * Self.pageSize)
        let shown = Array(records.prefix(Self.pageSize)).map(\.json)
        let ids = shown.compactMap { $0["objectId"]?.stringValue }
        let origins = try await services.pushQueries.origins(appId: app.appId, pushIds: ids)
        let unique = try await services.pushQueries.uniqueOpens(
            appId: app.appId, pushIds: shown.flatMap(Self.memberIds))
        let rows: [[String: Any]] = shown.map { record in
            let id = record["objectId"]?.stringValue ?? ""
            var row = Self.counts(record)
            row["objectId"] = id
            row["created"] = Shown.time(record["createdAt"]?.stringValue)
            row["sender"] = origins[id].map { Self.sender($0.sender) } ?? "—"
            row["audience"] = Shown.audience(record["where"], origins[id])
            let opened = Self.memberIds(record).reduce(0) { $0 + (unique[$1] ?? 0) }
            row["openRate"] = Shown.percent(opened, of: record["successes"]?.intValue ?? 0)
            return row
        }
        if rows.isEmpty {
            notes.append(
                filter == PushListFilter()
                    ? "No pushes yet. Send one from the Send page, or with POST /1.1/push and the master key."
                    : "No pushes match these filters. Clear them to see every push.")
        }
        let sending = shown.contains { $0["status"]?.stringValue == PushEvent.Status.inQueue }
        var values: [String: Any] = [
            "rows": rows, "notes": notes, "statuses": Self.statusOptions(filter.status),
            "from": request.query("from") ?? "", "to": request.query("to") ?? "", "sending": sending,
        ]
        if page > 0 { values["newer"] = Self.pageLink(request, page - 1) }
        if records.count > Self.pageSize { values["older"] = Self.pageLink(request, page + 1) }
        return pages.page("pushes", title: "Push records", values, chrome: chrome)
    }

    func pushDetail(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        let chrome = try chrome(request, context, section: "pushes")
        let id = try context.parameters.require("objectId")
        guard let record = try await services.pushQueries.get(appId: app.appId, pushId: id)?.json else {
            throw LeanError.notFound("No push record \(id): it may have been deleted or purged after 7 days.")
        }
        let events = try await services.events.readStream(appId: app.appId, stream: PushEvent.stream(id))
        let origin = try await services.pushQueries.origins(appId: app.appId, pushIds: [id])[id]
        let members = Self.memberIds(record)
        let unique = try await services.pushQueries.uniqueOpens(appId: app.appId, pushIds: members).values.reduce(0, +)
        let status = record["status"]?.stringValue ?? ""
        let reasons = (record["errorReasons"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map {
            ["reason": $0.key, "count": $0.value.intValue ?? 0] as [String: Any]
        }
        var values = Self.counts(record)
        values.merge([
            "objectId": id, "created": Shown.time(record["createdAt"]?.stringValue),
            "updated": Shown.time(record["updatedAt"]?.stringValue),
            "pushTime": Shown.time(record["push_time"]?.stringValue),
            "expiration": Shown.time(record["expiration_time"]?.stringValue),
            "sender": origin.map { Self.sender($0.sender) } ?? "—", "prod": record["prod"]?.stringValue ?? "",
            "audience": Shown.audience(record["where"], origin), "where": Shown.json(record["where"], limit: 2000),
            "data": Shown.json(record["data"], limit: 4000), "reasons": reasons,
            "openRate": Shown.percent(unique, of: record["successes"]?.intValue ?? 0), "uniqueOpens": unique,
            "timeline": events.map(PushTimeline.entry), "csrf": chrome.csrf,
            "cancellable": status == PushEvent.Status.scheduled || status == PushEvent.Status.inQueue,
            "sending": status == PushEvent.Status.inQueue,
        ]) { _, new in new }
        if let notice = request.query("notice") { values["notice"] = notice }
        if let id = record["notificationId"]?.stringValue { values["notificationId"] = id }
        // Requests under one notification_id are one record (SPEC §12.6): the counts above are theirs together,
        // the timeline and the cancel button this request's own.
        if members.count > 1 { values["requests"] = ["ids": members] }
        return pages.page("push", title: "Push \(id)", values, chrome: chrome)
    }

    /// The requests a (merged) record stands for: its `objectIds`, or itself.
    static func memberIds(_ record: JSON) -> [String] {
        let ids = (record["objectIds"]?.arrayValue ?? []).compactMap(\.stringValue)
        return ids.isEmpty ? [record["objectId"]?.stringValue].compactMap { $0 } : ids
    }

    func cancelPush(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        let id = try context.parameters.require("objectId")
        try await services.pushes.cancel(appId: app.appId, pushId: id, metadata: context.metadata(for: request))
        return Response.redirect(to: "/console/pushes/\(id)?notice=cancelled", type: .normal)
    }

    /// How the page names the services of `AndroidVendor.counters`, in their order.
    static let vendorLabels = ["Huawei (HMS)", "Xiaomi", "OPPO", "vivo", "Meizu", "Honor", "FCM", "own channel"]

    /// The figures a record row and the detail page share.
    static func counts(_ record: JSON) -> [String: Any] {
        var out: [String: Any] = [:]
        for key in [
            "devices", "successes", "errors", "opens", "invalidTokens", "iosSuccesses", "androidSuccesses",
            "windowsSuccesses", "channelPending",
        ] {
            out[key] = record[key]?.intValue ?? 0
        }
        // Android successes by vendor (SPEC §12.3), those with any.
        out["vendors"] = zip(AndroidVendor.counters, vendorLabels).compactMap { counter, label -> [String: Any]? in
            guard let count = record[counter]?.intValue, count > 0 else { return nil }
            return ["field": counter, "label": label, "count": count]
        }
        let status = record["status"]?.stringValue ?? ""
        out["status"] = status
        out["statusClass"] = Shown.statusClass(status)
        return out
    }

    static func sender(_ m: EventMetadata) -> String {
        [m.keyKind + " key", m.address].compactMap { $0 }.joined(separator: " from ")
    }

    static func statusOptions(_ selected: PushListFilter.Status?) -> [[String: Any]] {
        [["value": "", "label": "any status", "selected": selected == nil]]
            + PushListFilter.Status.allCases.map {
                ["value": $0.rawValue, "label": $0.rawValue, "selected": $0 == selected]
            }
    }

    /// A `YYYY-MM-DD` filter day, read as UTC midnight.
    static func day(_ text: String, _ name: String) throws -> Date {
        guard text.count == 10, let date = LeanDate.parse(text + "T00:00:00.000Z") else {
            throw LeanError.invalidParameter("Invalid \(name) date \(text): use YYYY-MM-DD.")
        }
        return date
    }

    static func pageLink(_ request: Request, _ page: Int) -> String {
        QueryLink.make("/console/pushes", ["page": String(page)], carrying: ["status", "from", "to"], from: request)
    }

    func nonEmpty(_ value: String?) -> String? { value?.isEmpty == false ? value : nil }
}
