import Foundation
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

@testable import Ledger

/// Installation saves that arrive together share a transaction (group commit); each must still get its own
/// answer, its own events with its own metadata, and nothing of a refused save may reach the log.
@Suite("Group commit of installation saves", .requiresPostgreSQL)
struct GroupSaveTests {
    private static func token(_ n: Int) -> String { String(format: "%064x", n) }

    private enum Expected { case created, upserted(of: Int), refused(code: Int) }

    @Test("concurrent saves share transactions, and each gets its own answer and its own events")
    func concurrentSaves() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "g", appId: "group")
        let store = db.ledger.installations
        // Installations that concurrent saves will upsert onto.
        var existing: [Int: String] = [:]
        for n in 1...20 {
            let saved = try await store.save(
                appId: app.appId,
                body: [
                    "deviceType": "ios", "deviceToken": .string(Self.token(n)), "installationId": .string("iid-\(n)"),
                ], metadata: EventMetadata(keyKind: "client"))
            existing[n] = saved.objectId
        }
        let eventsBefore = try await db.eventCount()

        // 300 saves at once: creates, upserts onto the installations above, invalid fields, and identities
        // of two different installations.
        var requests: [(body: [String: JSON], expected: Expected)] = []
        for i in 0..<300 {
            switch i % 6 {
            case 0, 1, 2:
                requests.append(
                    (["deviceType": "ios", "deviceToken": .string(Self.token(1000 + i)), "channels": ["c"]], .created))
            case 3:
                let n = 1 + (i / 6) % 20
                requests.append(
                    (["deviceToken": .string(Self.token(n)), "channels": .array([.string("u\(i)")])], .upserted(of: n)))
            case 4:
                requests.append(
                    (["deviceType": "nokia", "deviceToken": .string(Self.token(1000 + i))], .refused(code: 1)))
            default:
                let n = 1 + (i / 6) % 19
                requests.append(
                    (
                        ["deviceToken": .string(Self.token(n)), "installationId": .string("iid-\(n + 1)")],
                        .refused(code: 132)
                    ))
            }
        }
        let results = await withTaskGroup(of: (Int, Result<InstallationCommands.SaveResult, any Error>).self) { group in
            for (i, request) in requests.enumerated() {
                group.addTask {
                    do {
                        return (
                            i,
                            .success(
                                try await store.save(
                                    appId: app.appId, body: request.body,
                                    metadata: EventMetadata(keyKind: "client", requestId: "r\(i)")))
                        )
                    } catch {
                        return (i, .failure(error))
                    }
                }
            }
            var results: [Int: Result<InstallationCommands.SaveResult, any Error>] = [:]
            for await (i, result) in group { results[i] = result }
            return results
        }

        var creates = 0, upserts = 0
        for (i, request) in requests.enumerated() {
            switch (request.expected, results[i]!) {
            case (.created, .success(let saved)):
                #expect(saved.created)
                creates += 1
            case (.upserted(let n), .success(let saved)):
                #expect(!saved.created && saved.objectId == existing[n], "save \(i)")
                upserts += 1
            case (.refused(let code), .failure(let error)):
                #expect((error as? LeanError)?.code.rawValue == code, "save \(i): \(error)")
            default:
                Issue.record("save \(i) expected \(request.expected), got \(results[i]!)")
            }
        }
        #expect(creates == 150 && upserts == 50)

        // One event per successful save, each carrying the metadata of the request that caused it.
        let events = try await db.ledger.pool.query(
            """
            SELECT type, metadata ->> 'requestId' AS request, transaction_id::text AS xid FROM events
            WHERE app_id = 'group' AND metadata ? 'requestId' ORDER BY position
            """)
        #expect(events.count == creates + upserts)
        #expect(try await db.eventCount() == eventsBefore + creates + upserts)
        for row in events {
            let i = Int(try row.string("request").dropFirst())!
            switch requests[i].expected {
            case .created: #expect(try row.string("type") == InstallationEvent.created)
            case .upserted: #expect(try row.string("type") == InstallationEvent.updated)
            case .refused: Issue.record("refused save \(i) left an event")
            }
        }
        // The point of it all: saves shared transactions.
        let transactions = Set(try events.map { try $0.string("xid") })
        #expect(transactions.count < events.count, "\(transactions.count) transactions for \(events.count) saves")

        let installations = try await db.ledger.pool.query(
            "SELECT count(*) AS n FROM installations WHERE app_id = 'group'")[0].int("n")
        #expect(installations == 20 + creates)
        let report = try await db.ledger.rebuilder().run(verify: true)
        #expect(report.differences.isEmpty, "\(report.differences)")
    }

    @Test("concurrent saves of one new token make one installation")
    func sameTokenAtOnce() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "g", appId: "group")
        let store = db.ledger.installations
        let saved = try await withThrowingTaskGroup(of: InstallationCommands.SaveResult.self) { group in
            for i in 0..<40 {
                group.addTask {
                    try await store.save(
                        appId: app.appId,
                        body: [
                            "deviceType": "ios", "deviceToken": .string(Self.token(i % 4)),
                            "channels": .array([.string("c\(i)")]),
                        ], metadata: EventMetadata(keyKind: "client"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(saved.filter(\.created).count == 4)
        #expect(Set(saved.map(\.objectId)).count == 4)
        let rows = try await db.ledger.pool.query(
            "SELECT count(*) AS n, max(version) AS v FROM installations WHERE app_id = 'group'")[0]
        #expect(try rows.int("n") == 4)
        #expect(try rows.int("v") == 10)
    }

    @Test("tokens invalidated earlier are forgiven when a batch registers them again")
    func batchForgivesInvalidTokens() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "g", appId: "group")
        let store = db.ledger.installations
        let meta = EventMetadata(keyKind: "client")
        for n in 0..<30 {
            let saved = try await store.save(
                appId: app.appId, body: ["deviceType": "ios", "deviceToken": .string(Self.token(n))], metadata: meta)
            let past = LeanDate.format(Date().addingTimeInterval(-60))
            try await ReplayTestSupport.append(
                db, app: app.appId, objectId: saved.objectId, InstallationEvent.invalidated,
                [
                    "objectId": .string(saved.objectId), "token": .string(Self.token(n)), "reason": "Unregistered",
                    "since": .string(past), "at": .string(past),
                ])
        }
        let invalid: PGQuery = "SELECT count(*) AS n FROM invalid_tokens WHERE app_id = 'group'"
        #expect(try await db.ledger.pool.query(invalid)[0].int("n") == 30)
        // The first 20 come back, all at once (so in batches); the other 10 stay invalid.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<20 {
                group.addTask {
                    let saved = try await store.save(
                        appId: app.appId, body: ["deviceType": "ios", "deviceToken": .string(Self.token(n))],
                        metadata: meta)
                    #expect(saved.created)
                }
            }
            try await group.waitForAll()
        }
        let left = try await db.ledger.pool.query(
            "SELECT token FROM invalid_tokens WHERE app_id = 'group' ORDER BY token")
        #expect(try left.map { try $0.string("token") } == (20..<30).map(Self.token))
        let report = try await db.ledger.rebuilder().run(verify: true)
        #expect(report.differences.isEmpty, "\(report.differences)")
    }

    @Test("a batch the database refuses is saved again one by one, with nothing of the failed try left")
    func failedBatchFallsBackToSingleSaves() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "g", appId: "group")
        // Two saves the queue would never put together: different tokens, one installationId. Both look
        // up nothing, both create, and the second INSERT breaks the installationId's unique index at COMMIT.
        let now = LeanDate.format(Date())
        let saves = [1, 2].map { n in
            InstallationCommands.PendingSave(
                appId: app.appId,
                body: ["deviceType": "android", "deviceToken": .string(Self.token(n)), "installationId": "shared"],
                token: Self.token(n), installationId: "shared", identityKeys: ["token:\(Self.token(n))", "iid:shared"],
                metadata: EventMetadata(keyKind: "client", requestId: "r\(n)"), now: now, wnsHosts: WNSHosts(),
                writer: .master)
        }
        let results = await InstallationCommands.save(saves, store: db.ledger.events)
        let first = try results[0].get(), second = try results[1].get()
        #expect(first.created && !second.created)
        #expect(first.objectId == second.objectId)
        // Exactly the events of the two single saves: a create, then an update setting the second token.
        let types = try await db.ledger.pool.query(
            "SELECT type FROM events WHERE app_id = 'group' AND stream LIKE 'installation:%' ORDER BY transaction_id, position"
        ).map { try $0.string("type") }
        #expect(types == [InstallationEvent.created, InstallationEvent.updated])
        let row = try await db.ledger.pool.query("SELECT device_token FROM installations WHERE app_id = 'group'")
        #expect(row.count == 1)
        #expect(try row[0].string("device_token") == Self.token(2))
    }
}
