import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// `applyAll` must be `apply` event by event, only with fewer statements: rebuild and group commit rely on it.
/// A seeded random stream of creates, updates, opens (with and without a push, repeated, around local
/// midnight in a non-UTC zone), badge resets and increments, deletes, and runs of targeted pages and delivered
/// batches of three pushes is applied both ways into two scratch schemas, and every table of the four
/// projections must come out identical.
@Suite("Projections: set-based runs equal one event at a time", .requiresPostgreSQL)
struct ProjectionRunTests {
    static let tables = [
        "apps", "installations", "invalid_tokens", "notifications", "push_stats", "push_opens", "daily_opens",
        "daily_usage",
    ]
    let projections: [any Projection] = [
        InstallationProjection(), NotificationProjection(), PushStatsProjection(), UsageProjection(),
    ]

    func stream(seed: UInt64, appId: String) -> [ProjectedEvent] {
        var rng = SeededRandom(seed: seed)
        var versions: [String: Int] = [:]
        var live = Set<String>()
        var events: [ProjectedEvent] = []
        let base = Date(timeIntervalSince1970: 1_767_000_000)  // 2025-12-29, around 09:20 UTC
        func at(_ n: Int) -> String { LeanDate.format(base.addingTimeInterval(Double(n) * 1_317)) }
        func event(_ id: String, _ type: String, _ data: JSON) {
            versions[id, default: 0] += 1
            events.append(
                try! ProjectedEvent(
                    appId: appId, stream: InstallationEvent.stream(id), version: versions[id]!, type: type, data: data))
        }
        func push(_ n: Int, _ type: String) {
            let push = "push\(rng.next() % 3)"
            let stream = PushEvent.stream(push)
            versions[stream, default: 0] += 1
            let batch = Int64(versions[stream]!)
            let count = Int64(1 + rng.next() % 5)
            let data: JSON
            if type == PushEvent.targeted {
                // As the fan-out writes them, or as the rebuild's scan sends them (their number).
                let targets = (0..<count).map {
                    PushTarget(objectId: "i\($0)", deviceType: "ios", token: "tok-i\($0)", profile: nil, badge: nil)
                }
                data =
                    rng.next() % 2 == 0
                    ? PushTargeted(objectId: push, batch: batch, targets: targets, at: at(n)).json
                    : [
                        "objectId": .string(push), "batch": .int(batch), "at": .string(at(n)),
                        PushTargeted.targetCountKey: .int(count),
                    ]
            } else {
                data =
                    BatchDelivered.random(
                        objectId: push, batch: batch, count: count, at: at(n),
                        reasons: ["BadDeviceToken", "Unregistered", "Timeout"], using: &rng
                    ).json
            }
            events.append(
                try! ProjectedEvent(appId: appId, stream: stream, version: versions[stream]!, type: type, data: data))
        }
        for n in 0..<400 {
            let id = "i\(rng.next() % 12)"
            let t = at(n)
            // Runs of one to four targeted pages or delivered batches, of any of the pushes.
            if rng.next() % 6 == 0 {
                let type = rng.next() % 2 == 0 ? PushEvent.targeted : PushEvent.batchDelivered
                for _ in 0...(rng.next() % 4) { push(n, type) }
                continue
            }
            // A log creates an installation only when it does not exist and deletes it only when it does.
            var pick = rng.next() % 10
            if pick < 2 && live.contains(id) { pick = 2 }
            if pick == 5 && !live.contains(id) { pick = 0 }
            switch pick {
            case 0, 1:
                live.insert(id)
                let fields: [String: JSON] = ["deviceType": "ios", "deviceToken": .string("tok-\(id)"), "badge": 3]
                event(id, InstallationEvent.created, InstallationCreated(objectId: id, fields: fields, at: t).json)
            case 2:
                event(
                    id, InstallationEvent.updated,
                    InstallationUpdated(
                        objectId: id, set: ["channels": .array([.string("c\(rng.next() % 3)")])], unset: [],
                        updatedAt: t
                    ).json)
            case 3:
                event(id, InstallationEvent.badgeReset, BadgeChanged(objectId: id, resetAt: t).json)
            case 4:
                let badge = rng.next() % 3 == 0 ? nil : Int64(rng.next() % 9)
                var data: [String: JSON] = ["objectId": .string(id), "updatedAt": .string(t)]
                if let badge { data["badge"] = .int(badge) }
                event(id, InstallationEvent.badgeIncremented, .object(data))
            case 5:
                live.remove(id)
                event(id, InstallationEvent.deleted, InstallationRemoved(objectId: id, reason: "test", at: t).json)
            default:
                let push = rng.next() % 4 == 0 ? nil : "push\(rng.next() % 3)"
                event(
                    id, InstallationEvent.opened,
                    AppOpened(
                        objectId: id, at: t, updatedAt: t, kind: push == nil ? "app" : "push",
                        platform: rng.next() % 2 == 0 ? "ios" : "android", pushId: push,
                        attribution: push == nil ? nil : "explicit", deliveredAt: push == nil ? nil : at(n - 3)
                    ).json)
            }
        }
        return events
    }

    @Test("installations, notifications, open statistics and usage: applyAll = apply, event by event")
    func setBasedRunsEqualSingleEvents() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "runs", appId: "projruns")
        try await db.ledger.apps.set(appId: app.appId, [("timezone", "Asia/Shanghai")])
        let seed = UInt64.random(in: 0...UInt64.max)
        print("ProjectionRunTests seed \(seed)")
        let events = stream(seed: seed, appId: app.appId)
        let projections = projections
        let differences = try await db.ledger.pool.withTransaction { conn in
            for schema in ["one_by_one", "set_based"] {
                try await conn.execute(unsafeScript: "CREATE SCHEMA \(schema)")
                for table in Self.tables {
                    try await conn.execute(
                        unsafeScript: "CREATE TABLE \(schema).\(table) (LIKE public.\(table) INCLUDING ALL)")
                }
                try await conn.execute(
                    unsafeScript: """
                        INSERT INTO \(schema).apps SELECT * FROM public.apps;
                        INSERT INTO \(schema).notifications (app_id, object_id, data, where_query, prod, status,
                            created_at, updated_at)
                        SELECT 'projruns', 'push' || n, '{}', '{}', 'prod', 'done', now(), now()
                        FROM generate_series(0, 2) n;
                        INSERT INTO \(schema).push_stats (app_id, push_id, created_at)
                        SELECT 'projruns', 'push' || n, now() FROM generate_series(0, 2) n;
                        """)
            }
            for event in events {
                for projection in projections where projection.handles(event.type) {
                    try await projection.apply(event, on: conn, schema: "one_by_one")
                }
            }
            for projection in projections {
                try await projection.applyAll(
                    events.filter { projection.handles($0.type) }, on: conn, schema: "set_based")
            }
            var differences: [String] = []
            for table in Self.tables {
                for (a, b) in [("one_by_one", "set_based"), ("set_based", "one_by_one")] {
                    differences += try await conn.query(
                        PGQuery(
                            unsafeSQL: """
                                SELECT '\(table) only in \(a): ' || row_to_json(d)::text AS r FROM
                                    (SELECT * FROM \(a).\(table) EXCEPT ALL SELECT * FROM \(b).\(table)) d
                                """)
                    ).map { try $0.string("r") }
                }
            }
            let opens = try await conn.query("SELECT count(*) AS n FROM one_by_one.push_opens")[0].int("n")
            #expect(opens > 5, "the stream should open pushes")
            let counted = try await conn.query(
                "SELECT sum(devices) AS d, sum(successes) AS s FROM one_by_one.daily_usage")[0]
            #expect(try counted.int("d") > 0 && counted.int("s") > 0, "the stream should target and deliver")
            try await conn.execute(unsafeScript: "DROP SCHEMA one_by_one CASCADE; DROP SCHEMA set_based CASCADE")
            return differences
        }
        #expect(differences.isEmpty, "seed \(seed):\n\(differences.prefix(10).joined(separator: "\n"))")
    }
}
