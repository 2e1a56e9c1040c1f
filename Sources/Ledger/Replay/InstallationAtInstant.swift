import Foundation
import Postgres
import PushCore

/// One installation folded into a scratch table at a push's instant; each targeting condition is evaluated
/// on that row alone with the very SQL targeting uses, so a verdict here is the verdict targeting reached.
struct InstallationAtInstant {
    let scratch: ReplayScratch
    let appId: String
    let objectId: String
    let instant: Date
    let conn: PGConnection

    private var row: PGRow? {
        get async throws {
            let one = installationRow
            return try await conn.query(
                "SELECT data, created_at, updated_at, device_type FROM \(unsafeRaw: one.table) WHERE \(one.key)"
            ).first
        }
    }

    /// Whether `condition` (over the installations table's columns) holds for this row.
    private func holds(_ condition: PGQuery) async throws -> Bool { try await installationRow.holds(condition) }

    func existence(history: [TimedEvent]) async throws -> Explanation.Condition {
        if let row = try await row {
            return .init(
                name: "exists", requirement: "exists at the instant",
                value: "created \(LeanDate.format(try row.date("created_at")))", met: true)
        }
        let value: String
        if let removal = history.last(where: {
            [
                InstallationEvent.deleted, InstallationEvent.invalidated,
                InstallationEvent.expired,
            ].contains($0.event.type)
        }) {
            value = "\(removal.event.type) at \(LeanDate.format(removal.at))"
        } else {
            value = "not created yet"
        }
        return .init(name: "exists", requirement: "exists at the instant", value: value, met: false)
    }

    /// `POST /push`: PushTargeting's conditions one by one (valid, updatedAt within the TTL, platform content,
    /// then each top-level key of `where`).
    func queryConditions(app: App, whereJSON: JSON, data: JSON) async throws -> [Explanation.Condition] {
        let row = try await row
        let fields = try row?.json("data")
        let ttlDays = max(1, app.intSetting("installation_ttl_days"))
        let oldest = instant.addingTimeInterval(-Double(ttlDays) * 86400)
        var out: [Explanation.Condition] = []
        // Without a row nothing can be evaluated; `holds` is simply false then and is not shown.
        func add(_ name: String, _ requirement: String, _ value: String, _ met: Bool) {
            out.append(
                .init(
                    name: name, requirement: requirement, value: row == nil ? "—" : value,
                    met: row == nil ? nil : met))
        }
        add("valid", "valid = true", fields?["valid"]?.encoded() ?? "absent (true)", try await holds("valid"))
        let updatedAt = row?.optionalDate("updated_at") ?? instant
        let age = String(format: "%.2f", instant.timeIntervalSince(updatedAt) / 86400)
        add(
            "updatedAt", "within installation_ttl_days = \(ttlDays) days",
            "\(LeanDate.format(updatedAt)), age \(age) days",
            try await holds("updated_at > \(oldest)::timestamptz"))
        let deviceType = row?["device_type"] ?? ""
        let hasContent = (try? PushData(data)).flatMap { d in
            PushPlatform(rawValue: deviceType).map { d.content(for: $0) }
        }
        add("deviceType", "push data has content for the platform", deviceType, hasContent.flatMap { $0 } != nil)
        for (key, condition) in Self.whereItems(whereJSON) {
            let compiled = try compile(.object([key: condition]))
            var shown = try await clauses(of: key, condition)
            if shown == nil, row != nil { shown = try await reading(of: key, condition, fields: fields) }
            if shown == nil { shown = try await value(of: key, in: fields) }
            add("where.\(key)", condition.encoded(), shown ?? "—", try await holds("\(compiled)"))
        }
        return out
    }

    /// For `$or`/`$nor`, which of the clauses this row matches (1-based), each evaluated on its own with the
    /// compiler's SQL: the clause that made a `$nor` exclude the row is the one to name. Nil for other keys.
    private func clauses(of key: String, _ condition: JSON) async throws -> String? {
        guard key == "$or" || key == "$nor", let items = condition.arrayValue, try await row != nil
        else { return nil }
        var matched: [String] = []
        for (n, item) in items.enumerated() {
            let compiled = try compile(item)
            if try await holds("\(compiled)") { matched.append("\(n + 1) \(item.encoded())") }
        }
        return matched.isEmpty
            ? "matches none of its \(items.count) clauses" : "matches clause " + matched.joined(separator: "; clause ")
    }

    /// `POST /push/devices`: the audience is a device list, matched as `PushCommands.deviceTargets` matches it.
    func deviceConditions(platform: PushPlatform, ids: [String]) async throws -> [Explanation.Condition] {
        guard let row = try await row else {
            return [
                .init(name: "deviceType", requirement: "= \(platform.rawValue)", value: "—", met: nil),
                .init(
                    name: "device_ids", requirement: "token in the push's \(ids.count) device ids", value: "—", met: nil
                ),
            ]
        }
        let fields = try row.json("data")
        let tokens = ["deviceToken", "installationId", "registrationId", "subscriptionUri"].compactMap { k in
            fields[k]?.stringValue.map { "\(k) \($0)" }
        }
        return [
            .init(
                name: "deviceType", requirement: "= \(platform.rawValue)", value: try row.string("device_type"),
                met: try row.string("device_type") == platform.rawValue),
            .init(
                name: "device_ids", requirement: "token in the push's \(ids.count) device ids",
                value: tokens.joined(separator: ", "),
                met: try await holds(
                    """
                    device_token = ANY(\(ids)::text[]) OR installation_id = ANY(\(ids)::text[])
                        OR registration_id = ANY(\(ids)::text[]) OR subscription_uri = ANY(\(ids)::text[])
                    """)),
        ]
    }

    /// The installation's value for a top-level `where` key (`—` for other operators).
    private func value(of key: String, in fields: JSON?) async throws -> String {
        guard !key.hasPrefix("$") else { return "—" }
        let field = String(key.split(separator: ".").first ?? Substring(key))
        let columns = ["objectId": "object_id", "createdAt": "created_at", "updatedAt": "updated_at"]
        if let column = columns[field], let row = try await row {
            return column == "object_id" ? objectId : LeanDate.format(try row.date(column))
        }
        return fields?[field]?.encoded() ?? "(absent)"
    }

    /// The top-level conditions of `where`, with nested `$and`s flattened: `channels` given to a push is folded
    /// into `where` as `{"$and": [where, {"channels": {"$in": …}}]}` and should read as its own condition.
    static func whereItems(_ whereJSON: JSON) -> [(String, JSON)] {
        guard let object = whereJSON.objectValue else { return [] }
        var items: [(String, JSON)] = []
        for key in object.keys.sorted() {
            let value = object[key]!
            if key == "$and", let list = value.arrayValue, !list.isEmpty, list.allSatisfy({ $0.objectValue != nil }) {
                for sub in list { items += whereItems(sub) }
            } else {
                items.append((key, value))
            }
        }
        return items
    }
}
