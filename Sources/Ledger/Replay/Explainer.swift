import Foundation
import Postgres
import PushCore

/// `pushledger explain` (SPEC §9): folds one installation's stream up to the instant a push was targeted
/// (through `InstallationProjection.apply` itself, into a scratch schema) and evaluates each targeting
/// condition on that row on its own, so the first one not met can be named. Objects of other classes that the
/// push's `where` reads are folded to the same instant.
public struct Explainer: Sendable {
    let store: EventStore

    public init(store: EventStore) { self.store = store }

    public enum Failure: Error, CustomStringConvertible {
        case unknownPush(String)
        case unknownInstallation(String)

        public var description: String {
            switch self {
            case .unknownPush(let id): "no push with objectId \(id) in this app's log"
            case .unknownInstallation(let id): "no installation with objectId \(id) in this app's log"
            }
        }
    }

    public func explain(app: App, pushId: String, objectId: String) async throws -> Explanation {
        try await store.pool.withTransaction(isolation: .repeatableRead) { conn in
            let pushEvents = try await TimedEvent.stream(PushEvent.stream(pushId), appId: app.appId, on: conn)
            guard let push = try PushHistory(pushEvents) else { throw Failure.unknownPush(pushId) }
            let stream = try await TimedEvent.stream(InstallationEvent.stream(objectId), appId: app.appId, on: conn)
            guard !stream.isEmpty else { throw Failure.unknownInstallation(objectId) }
            // Connects and disconnects on the own channel, shown among the installation's events.
            let presence = try await TimedEvent.stream(PresenceEvent.stream(objectId), appId: app.appId, on: conn)
            let shown = (stream + presence).sorted { $0.at < $1.at }

            let tokens = Self.tokensEverHeld(stream)
            let batch =
                tokens.lazy.compactMap { push.batch(objectId: objectId, token: $0) }.first
                ?? push.batch(objectId: objectId, token: nil)
            let (instant, source) = push.instant(batch: batch.map { ($0.number, $0.event) })

            let scratch = try await ReplayScratch.create(on: conn, indexedInstallations: true)
            let fold = InstallationFold(appId: app.appId, at: instant)
            try await fold.appSettings(into: scratch, on: conn)
            _ = try await fold.perEvent(into: scratch, objectId: objectId, on: conn)
            if case .query(let whereJSON) = push.request.audience, WhereCompiler.readsOtherClasses(whereJSON) {
                // Sub-queries match against every object of a class (a `$select` any of them), so all are folded.
                _ = try await ObjectFold(appId: app.appId, at: instant).setBased(into: scratch, on: conn)
            }
            let appThen = try await Replayer.app(app, in: scratch, on: conn)
            let row = InstallationAtInstant(
                scratch: scratch, appId: app.appId, objectId: objectId, instant: instant, conn: conn)
            let history = stream.filter { $0.at <= instant }
            var conditions = [try await row.existence(history: history)]
            switch push.request.audience {
            case .query(let whereJSON):
                conditions += try await row.queryConditions(app: appThen, whereJSON: whereJSON, data: push.request.data)
            case .devices(let platform, let ids):
                conditions += try await row.deviceConditions(platform: platform, ids: ids)
            }
            try await scratch.drop(on: conn)

            let delivery: Explanation.Delivery =
                if let batch {
                    push.outcome(batch: batch.number, target: batch.target, keys: [objectId] + tokens)
                } else {
                    .notTargeted(note: conditions.allSatisfy { $0.met == true } ? push.notTargetedNote : nil)
                }
            return Explanation(
                appId: app.appId, pushId: pushId, objectId: objectId, requestedAt: push.requested.at, instant: instant,
                instantSource: source, audience: Self.audience(push.request),
                history: shown.filter { $0.at <= instant }.map(Self.entry),
                laterEvents: shown.filter { $0.at > instant }.map(Self.entry), conditions: conditions,
                delivery: delivery, route: batch.map { DeliveryRoute($0.target).serviceName })
        }
    }

    /// Every token or device id the stream ever gave the installation, so a `/push/devices` target recorded by
    /// token alone is still found.
    static func tokensEverHeld(_ stream: [TimedEvent]) -> [String] {
        var tokens: [String] = []
        for e in stream {
            let fields: [String: JSON]
            switch try? e.event.decoded() {
            case .installation(.created(let created)): fields = created.fields
            case .installation(.updated(let updated)): fields = updated.set
            default: continue
            }
            for key in ["deviceToken", "registrationId", "subscriptionUri", "installationId"] {
                if let t = fields[key]?.stringValue, !t.isEmpty, !tokens.contains(t) { tokens.append(t) }
            }
        }
        return tokens
    }

    static func audience(_ request: PushRequest) -> JSON {
        switch request.audience {
        case .query(let w): return w
        case .devices(let platform, let ids):
            return ["device_type": .string(platform.rawValue), "device_ids": .array(ids.map { .string($0) })]
        }
    }

    static func entry(_ e: TimedEvent) -> Explanation.HistoryEntry {
        Explanation.HistoryEntry(at: e.at, type: e.event.type, summary: EventSummary.keyFields(of: e.event))
    }
}
