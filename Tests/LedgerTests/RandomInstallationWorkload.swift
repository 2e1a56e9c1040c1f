import Foundation
import Ledger
import Postgres
import PushCore
import TestSupport

/// Random installation traffic through the real commands (and, for the event types the API does not produce
/// yet, through the ledger as their producers do): creates, upserts, `__op` updates, badge resets and
/// increments, opens, deletes, invalidations, expiries, and re-registration of a removed token.
struct RandomInstallationWorkload {
    enum Kind: CaseIterable {
        case create, upsert, addChannel, removeChannel, setFields, unsetField, increment, badgeReset,
            badgeIncremented, opened, delete, invalidate, expire, reRegister, touchRemoved
    }

    let db: TestDatabase
    let appId: String
    private(set) var kindsUsed: Set<Kind> = []
    private var live: [String: (token: String, ios: Bool)] = [:]
    private var removed: [(objectId: String, token: String, ios: Bool)] = []
    private var next = 1
    private let meta = EventMetadata(keyKind: "master")
    private let channels = ["c1", "c2", "c3", "c4"]

    init(db: TestDatabase, appId: String) {
        self.db = db
        self.appId = appId
    }

    mutating func run(steps: Int, using rng: inout SeededRandom) async throws {
        for _ in 0..<steps {
            // Creating a quarter of the time keeps the population growing despite the five ways to remove one.
            var kind =
                live.count < 5 || Int.random(in: 0..<4, using: &rng) == 0
                ? .create : Kind.allCases.randomElement(using: &rng)!
            if removed.isEmpty, kind == .reRegister || kind == .touchRemoved { kind = .create }
            try await perform(kind, using: &rng)
            kindsUsed.insert(kind)
        }
    }

    private mutating func perform(_ kind: Kind, using rng: inout SeededRandom) async throws {
        let store = db.ledger.installations
        let now = LeanDate.format(Date())
        let pick = live.keys.sorted().randomElement(using: &rng)
        let channel = JSON.string(channels.randomElement(using: &rng)!)
        switch kind {
        case .create:
            let ios = Bool.random(using: &rng)
            let token = ios ? String(format: "%064x", next) : "iid-\(next)"
            next += 1
            try await save(
                token: token, ios: ios,
                extra: [
                    "channels": .array([channel]), "badge": .int(Int64.random(in: 0...3, using: &rng)),
                    "level": .int(Int64.random(in: 0...5, using: &rng)),
                ])
        case .reRegister:
            let old = removed.randomElement(using: &rng)!
            try await save(token: old.token, ios: old.ios, extra: ["channels": .array([channel])])
            removed.removeAll { $0.token == old.token }
        case .upsert:
            let target = live[pick!]!
            try await save(
                token: target.token, ios: target.ios, extra: ["channels": .array([channel]), "appVersion": "2"])
        case .addChannel:
            _ = try await store.update(
                appId: appId, objectId: pick!, body: ["channels": ["__op": "AddUnique", "objects": [channel]]],
                metadata: meta)
        case .removeChannel:
            _ = try await store.update(
                appId: appId, objectId: pick!, body: ["channels": ["__op": "Remove", "objects": [channel]]],
                metadata: meta)
        case .setFields:
            _ = try await store.update(
                appId: appId, objectId: pick!,
                body: [
                    "valid": .bool(Bool.random(using: &rng)), "level": .int(Int64.random(in: 0...5, using: &rng)),
                    "timeZone": "Asia/Shanghai",
                ], metadata: meta)
        case .unsetField:
            _ = try await store.update(
                appId: appId, objectId: pick!, body: ["level": ["__op": "Delete"]], metadata: meta)
        case .increment:
            _ = try await store.update(
                appId: appId, objectId: pick!, body: ["badge": ["__op": "Increment", "amount": 2]], metadata: meta)
        case .badgeReset:
            _ = try await store.update(appId: appId, objectId: pick!, body: ["badge": 0], metadata: meta)
        case .badgeIncremented:
            try await ReplayTestSupport.append(
                db, app: appId, objectId: pick!, InstallationEvent.badgeIncremented,
                ["objectId": .string(pick!), "badge": .int(Int64.random(in: 1...9, using: &rng)), "at": .string(now)])
        case .opened:
            try await ReplayTestSupport.append(
                db, app: appId, objectId: pick!, InstallationEvent.opened,
                AppOpened(
                    objectId: pick!, at: now, updatedAt: now, kind: "app", platform: "ios",
                    pushId: nil, attribution: nil, deliveredAt: nil
                ).json)
        case .delete:
            try await store.delete(appId: appId, objectId: pick!, metadata: meta)
            forget(pick!)
        case .invalidate:
            try await ReplayTestSupport.append(
                db, app: appId, objectId: pick!, InstallationEvent.invalidated,
                [
                    "objectId": .string(pick!), "token": .string(live[pick!]!.token), "reason": "BadDeviceToken",
                    "since": .string(now), "at": .string(now),
                ])
            forget(pick!)
        case .expire:
            try await ReplayTestSupport.append(
                db, app: appId, objectId: pick!, InstallationEvent.expired,
                InstallationRemoved(objectId: pick!, reason: "expired", at: now).json)
            forget(pick!)
        case .touchRemoved:
            // An open recorded after the installation went: the projection's UPDATE matches nothing.
            let gone = removed.randomElement(using: &rng)!
            try await ReplayTestSupport.append(
                db, app: appId, objectId: gone.objectId, InstallationEvent.opened,
                AppOpened(
                    objectId: gone.objectId, at: now, updatedAt: now, kind: "app",
                    platform: "ios", pushId: nil, attribution: nil, deliveredAt: nil
                ).json)
        }
    }

    private mutating func save(token: String, ios: Bool, extra: [String: JSON]) async throws {
        var body = extra
        body["deviceType"] = ios ? "ios" : "android"
        body[ios ? "deviceToken" : "installationId"] = .string(token)
        if !ios { body["registrationId"] = .string("reg-\(token)") }
        let result = try await db.ledger.installations.save(appId: appId, body: body, metadata: meta)
        live[result.objectId] = (token, ios)
    }

    private mutating func forget(_ objectId: String) {
        if let gone = live.removeValue(forKey: objectId) { removed.append((objectId, gone.token, gone.ios)) }
    }
}
