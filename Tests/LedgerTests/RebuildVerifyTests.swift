import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

@Suite("Rebuild and verify", .requiresPostgreSQL)
struct RebuildVerifyTests {
    /// A randomized workload of installation changes from concurrent clients, seeded for reproducibility.
    static func randomWorkload(_ db: TestDatabase, appId: String, operations: Int, seed: UInt64) async throws {
        let store = db.ledger.installations
        let meta = EventMetadata(keyKind: "client", address: "127.0.0.1", userAgent: "test")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var rng = SeededRandom(seed: seed &+ UInt64(worker))
                    var mine: [String] = []
                    for _ in 0..<(operations / 8) {
                        let token = String(format: "%064x", Int(rng.next() % 300))
                        switch rng.next() % 10 {
                        case 0...3:
                            var body: [String: JSON] = [
                                "deviceType": "ios", "deviceToken": .string(token),
                                "channels": .array([.string("c\(rng.next() % 5)")]),
                            ]
                            if rng.next() % 3 == 0 { body["badge"] = .int(Int64(rng.next() % 4)) }
                            if rng.next() % 4 == 0 { body["custom"] = ["n": .int(Int64(rng.next() % 100))] }
                            let r = try await store.save(appId: appId, body: body, metadata: meta)
                            mine.append(r.objectId)
                        case 4...6 where !mine.isEmpty:
                            let id = mine[Int(rng.next() % UInt64(mine.count))]
                            let body: [String: JSON] = [
                                "channels": ["__op": "AddUnique", "objects": [.string("u\(rng.next() % 3)")]],
                                "badge": rng.next() % 2 == 0 ? ["__op": "Increment", "amount": 2] : 0,
                                "timeZone": rng.next() % 2 == 0 ? "Asia/Shanghai" : ["__op": "Delete"],
                            ]
                            _ = try? await store.update(appId: appId, objectId: id, body: body, metadata: meta)
                        case 7 where !mine.isEmpty:
                            let id = mine.remove(at: Int(rng.next() % UInt64(mine.count)))
                            try? await store.delete(appId: appId, objectId: id, metadata: meta)
                        default:
                            let body: [String: JSON] = [
                                "deviceType": "android", "installationId": .string("iid-\(rng.next() % 200)"),
                                "registrationId": .string("reg-\(rng.next())"),
                            ]
                            _ = try await store.save(appId: appId, body: body, metadata: meta)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("rebuild --verify passes after thousands of random installation changes, and catches tampering")
    func verifyAfterRandomWorkload() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "a", appId: "appA")
        _ = try await db.ledger.apps.create(name: "b", appId: "appB")
        try await Self.randomWorkload(db, appId: "appA", operations: 2400, seed: 42)
        try await Self.randomWorkload(db, appId: "appB", operations: 800, seed: 7)
        #expect(try await db.eventCount() > 2500)

        let report = try await db.ledger.rebuilder().run(verify: true)
        #expect(report.differences.isEmpty, "\(report.differences)")
        #expect(report.events == (try await db.eventCount()))
        Self.expectPhases(report, ["prepare", "folds", "pages", "summaries", "compare"])

        // Writing a projection table behind the log's back is caught.
        try await db.ledger.pool.query(
            "UPDATE installations SET data = data || '{\"tampered\":true}' WHERE object_id = (SELECT min(object_id) FROM installations)"
        )
        let tampered = try await db.ledger.rebuilder().run(verify: true)
        #expect(tampered.differences.map(\.table) == ["installations"])
        #expect(tampered.differences.first?.onlyLive.count == 1)

        // A plain rebuild repairs it.
        Self.expectPhases(
            try await db.ledger.rebuilder().run(verify: false),
            ["prepare", "folds", "pages", "summaries", "indexes", "statistics"])
        #expect(try await db.ledger.rebuilder().run(verify: true).differences.isEmpty)
    }

    @Test("a rebuild killed in the middle leaves the projections as they were, and the next one runs")
    func killedRebuildRollsBack() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "k", appId: "appK")
        // Enough installations for the fold to run for a while: written straight into the log, as an import would.
        try await db.ledger.pool.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata)
            SELECT 'appK', 'installation:' || lpad(to_hex(g), 24, '0'), 1, 'InstallationCreated',
                jsonb_build_object('objectId', lpad(to_hex(g), 24, '0'), 'createdAt', '2026-01-01T00:00:00.000Z',
                    'updatedAt', '2026-01-01T00:00:00.000Z',
                    'fields', jsonb_build_object('deviceType', 'ios', 'deviceToken', lpad(to_hex(g), 64, '0'))),
                '{"keyKind":"system"}'
            FROM generate_series(1, 100000) g
            """)
        _ = try await db.ledger.rebuilder().run(verify: false)
        // One row removed behind the log's back: a rolled-back rebuild leaves exactly this difference, a finished
        // one repairs it, and a half-written one would show many more.
        try await db.ledger.pool.query("DELETE FROM installations WHERE object_id = lpad(to_hex(7), 24, '0')")

        let rebuild = Process()
        rebuild.executableURL = URL(fileURLWithPath: ServerProcess.binaryPath)
        rebuild.arguments = ["rebuild"]
        rebuild.environment = ProcessInfo.processInfo.environment.merging(["DATABASE_URL": db.url]) { $1 }
        rebuild.standardOutput = FileHandle.nullDevice
        rebuild.standardError = FileHandle.nullDevice
        try rebuild.run()
        // Killed while PostgreSQL runs the installation fold: the live table is already emptied in its transaction.
        let database = try await db.ledger.pool.query("SELECT current_database() AS d")[0].string("d")
        var folding = false
        for _ in 0..<5000 where !folding {
            folding =
                !(try await db.ledger.pool.query(
                    """
                    SELECT 1 AS one FROM pg_stat_activity
                    WHERE datname = \(database) AND state = 'active' AND query LIKE '%WITH later AS MATERIALIZED%'
                    """
                ).isEmpty)
            if !folding { try await Task.sleep(for: .milliseconds(2)) }
        }
        kill(rebuild.processIdentifier, SIGKILL)
        rebuild.waitUntilExit()
        #expect(folding, "the rebuild was not seen folding")
        #expect(rebuild.terminationReason == .uncaughtSignal)

        // The server ends the orphaned transaction once the statement is done; verify waits for its locks.
        let after = try await db.ledger.rebuilder().run(verify: true)
        #expect(after.differences.map(\.table) == ["installations"])
        #expect(after.differences.first?.onlyLive.isEmpty == true)
        #expect(after.differences.first?.onlyRebuilt.count == 1)
        #expect(try await db.ledger.pool.query("SELECT count(*) AS n FROM installations")[0].int("n") == 99_999)

        _ = try await db.ledger.rebuilder().run(verify: false)
        #expect(try await db.ledger.rebuilder().run(verify: true).differences.isEmpty)
    }

    @Test("a rebuild leaves the planner's statistics of the rows it wrote, without waiting for autovacuum")
    func rebuildAnalyzesTables() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "s", appId: "appS")
        // Autovacuum would gather the statistics too, a minute or so later; here only the rebuild may.
        try await db.ledger.pool.query("ALTER TABLE installations SET (autovacuum_enabled = off)")
        try await db.ledger.pool.query("ANALYZE installations")
        // 3,000 installations imported into the log, one in three of them Android: the statistics the planner
        // should then have of `device_type`.
        try await db.ledger.pool.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata)
            SELECT 'appS', 'installation:' || lpad(to_hex(g), 24, '0'), 1, 'InstallationCreated',
                jsonb_build_object('objectId', lpad(to_hex(g), 24, '0'), 'createdAt', '2026-01-01T00:00:00.000Z',
                    'updatedAt', '2026-01-01T00:00:00.000Z',
                    'fields', CASE WHEN g % 3 = 0
                        THEN jsonb_build_object('deviceType', 'android', 'installationId', 'iid-' || g)
                        ELSE jsonb_build_object('deviceType', 'ios', 'deviceToken', lpad(to_hex(g), 64, '0')) END),
                '{"keyKind":"system"}'
            FROM generate_series(1, 3000) g
            """)
        let report = try await db.ledger.rebuilder().run(verify: false)
        Self.expectPhases(report, ["prepare", "folds", "pages", "summaries", "indexes", "statistics"])
        let stats = try await db.ledger.pool.query(
            """
            SELECT most_common_vals::text AS vals, most_common_freqs::text AS freqs, c.reltuples::bigint AS tuples
            FROM pg_stats s JOIN pg_class c ON c.oid = 'public.installations'::regclass
            WHERE s.schemaname = 'public' AND s.tablename = 'installations' AND s.attname = 'device_type'
            """)
        #expect(stats.count == 1, "no statistics of installations.device_type after the rebuild")
        guard let row = stats.first else { return }
        // A table this small is read whole by ANALYZE: its frequencies are exact.
        #expect(try row.string("vals") == "{ios,android}")
        #expect(try row.string("freqs") == "{0.6666667,0.33333334}")
        #expect(try row.int64("tuples") == 3000)
    }

    /// The report accounts for its time phase by phase, in order, within the whole.
    static func expectPhases(_ report: Rebuilder.Report, _ names: [String]) {
        #expect(report.phases.map(\.name) == names)
        #expect(report.phases.allSatisfy { $0.seconds >= 0 })
        #expect(report.phases.reduce(0) { $0 + $1.seconds } <= report.seconds)
    }

    @Test("the pushledger rebuild command exits non-zero on a mismatch and zero otherwise")
    func rebuildCommand() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "a", appId: "appC")
        try await Self.randomWorkload(db, appId: "appC", operations: 200, seed: 1)
        let ok = try ServerProcess.command(["rebuild", "--verify"], databaseURL: db.url)
        #expect(ok.status == 0, "\(ok.output)")
        #expect(ok.output.contains("verified"))
        #expect(ok.output.contains("rebuild phases: prepare "), "\(ok.output)")
        try await db.ledger.pool.query(
            "DELETE FROM installations WHERE object_id = (SELECT min(object_id) FROM installations)")
        let bad = try ServerProcess.command(["rebuild", "--verify"], databaseURL: db.url)
        #expect(bad.status != 0)
        #expect(bad.output.contains("MISMATCH"))
    }
}

/// SplitMix64: a tiny deterministic generator for reproducible workloads.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
