import Foundation
import HTTPEdge
import Hummingbird
import Ledger
import PushCore

/// Installation lookup by objectId, device token, installationId or registrationId: its fields, validity,
/// presence on the own channel, its history from the log, and "why not targeted by push X?" via `explain`.
extension ConsoleRoutes {
    func installationLookup(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        let chrome = try chrome(request, context, section: "installations")
        var values: [String: Any] = ["q": request.query("q") ?? "", "push": request.query("push") ?? ""]
        values["recentPushes"] = try await services.pushQueries.list(appId: app.appId, limit: 20, skip: 0).map {
            ["objectId": $0.json["objectId"]?.stringValue ?? "", "audience": Shown.audience($0.json["where"])]
        }
        guard let q = nonEmpty(request.query("q"))?.trimmingCharacters(in: .whitespaces) else {
            values["hint"] = true
            return pages.page("installations", title: "Installations", values, chrome: chrome)
        }
        let matches = try await find(q, app: app)
        if matches.count > 1 {
            values["choices"] = matches.map { ["objectId": $0] }
            values["multiple"] = true
            return pages.page("installations", title: "Installations", values, chrome: chrome)
        }
        guard let objectId = matches.first else {
            values["notFound"] =
                "No installation of \(app.appId) has the objectId, device token, installationId or "
                + "registrationId \(q), and the log has no installation stream under that objectId."
            return pages.page("installations", title: "Installations", values, chrome: chrome, status: .notFound)
        }
        values["found"] = try await details(objectId, app: app)
        if let pushId = nonEmpty(request.query("push")) {
            // A wrong push id is said beside the installation, which is still worth showing.
            do {
                values["explain"] = try await explanation(app: app, pushId: pushId, objectId: objectId)
            } catch let error as LeanError {
                values["explainError"] = "Code \(error.code): \(error.message)"
            }
        }
        return pages.page("installations", title: "Installation \(objectId)", values, chrome: chrome)
    }

    /// The objectIds `q` names: itself when the log knows it, else installations holding it as a token or id.
    func find(_ q: String, app: App) async throws -> [String] {
        if try await services.installations.get(appId: app.appId, objectId: q) != nil { return [q] }
        if !(try await services.events.readStream(appId: app.appId, stream: InstallationEvent.stream(q))).isEmpty {
            return [q]
        }
        var query = InstallationListRequest()
        query.whereJSON = [
            "$or": [
                ["deviceToken": .string(q.lowercased())], ["installationId": .string(q)],
                ["registrationId": .string(q)], ["subscriptionUri": .string(q)],
            ]
        ]
        query.limit = 10
        query.keys = ["objectId"]
        return try await services.installations.list(appId: app.appId, query, rights: .master).results.compactMap {
            $0["objectId"]?.stringValue
        }
    }

    func details(_ objectId: String, app: App) async throws -> [String: Any] {
        var out: [String: Any] = ["objectId": objectId]
        let history =
            try await services.events.readStream(appId: app.appId, stream: InstallationEvent.stream(objectId))
            + (try await services.events.readStream(appId: app.appId, stream: PresenceEvent.stream(objectId)))
        out["history"] = history.sorted { $0.position < $1.position }.map { e -> [String: Any] in
            [
                "at": Shown.time(e.recordedAt), "type": e.type, "summary": Shown.json(e.data, limit: 240),
                "actor": e.metadata["keyKind"]?.stringValue ?? "",
            ]
        }
        guard let stored = try await services.installations.get(appId: app.appId, objectId: objectId) else {
            out["deleted"] = true
            return out
        }
        out["fields"] = stored.fields.sorted { $0.key < $1.key }.map {
            ["name": $0.key, "value": Shown.json($0.value, limit: 400)]
        }
        let channels = (stored.fields["channels"]?.arrayValue ?? []).compactMap(\.stringValue)
        out["channels"] = channels
        out["hasChannels"] = !channels.isEmpty
        out["hasFields"] = !stored.fields.isEmpty
        let ttl = max(1, app.intSetting("installation_ttl_days"))
        let updated = LeanDate.parse(stored.updatedAt) ?? .distantPast
        let fresh = clock.now().timeIntervalSince(updated) < Double(ttl) * 86_400
        let valid = stored.fields["valid"]?.boolValue ?? true
        out["updated"] = Shown.time(stored.updatedAt)
        out["created"] = Shown.time(stored.createdAt)
        out["validity"] = ["valid": valid, "fresh": fresh, "ttl": ttl, "targetable": valid && fresh] as [String: Any]
        let presence = try await services.channel.presence(appId: app.appId, objectId: objectId)
        out["presence"] =
            [
                "online": presence["online"]?.boolValue ?? false, "since": Shown.time(presence["since"]?.stringValue),
                "lastSeen": Shown.time(presence["lastSeen"]?.stringValue),
                "neverConnected": presence["since"]?.stringValue == nil,
            ] as [String: Any]
        return out
    }

    func explanation(app: App, pushId: String, objectId: String) async throws -> [String: Any] {
        let e: Explanation
        do {
            e = try await services.explainer.explain(app: app, pushId: pushId, objectId: objectId)
        } catch let failure as Explainer.Failure {
            throw LeanError.notFound(failure.description + ".")
        }
        return [
            "pushId": pushId, "verdict": e.verdict, "targeted": e.matched, "delivery": e.deliveryText,
            "instant": Shown.time(e.instant), "instantSource": e.instantSource, "audience": Shown.json(e.audience),
            "conditions": e.conditions.map { c -> [String: Any] in
                [
                    "name": c.name, "requirement": c.requirement, "value": c.value,
                    "mark": c.met.map { $0 ? "met" : "not met" } ?? "n/a",
                    "markClass": c.met.map { $0 ? "ok" : "bad" } ?? "muted",
                ]
            },
            "text": e.text,
        ]
    }
}
