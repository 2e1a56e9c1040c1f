import Foundation
import Ledger
import Postgres
import PushCore
import TestSupport
import Testing

/// `rebuild` folds installations and objects inside PostgreSQL and applies only the other projections event by
/// event. Both its forms (`--verify` into a scratch schema, and the plain rebuild into the locked live tables)
/// must give exactly what `apply`, event by event in log order, gives for every projection: the reference here
/// is that walk, made into the live tables after the whole seeded random history was written to the log.
@Suite("Rebuild: folds equal apply, event by event", .enabled(if: TestDatabase.isAvailable))
struct LogFoldTests {
    static let app = "logfold"

    @Test("a random history of every projected event type rebuilds to the tables apply builds one event at a time")
    func rebuildEqualsPerEventApply() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "fold", appId: Self.app)
        _ = try await db.ledger.apps.set(appId: Self.app, [("timezone", "Asia/Shanghai")])
        let seed = UInt64.random(in: 0...UInt64.max)
        print("LogFoldTests seed \(seed)")
        var history = RandomHistory(seed: seed, appEvents: 2)
        let events = history.make(steps: 900)
        try await Self.append(events, to: db)
        let logged = try await db.ledger.pool.query("SELECT DISTINCT type FROM events").map { try $0.string("type") }
        let handled = Set(db.ledger.allProjections.flatMap { p in logged.filter(p.handles) })
        let expectedTypes: Set<String> = [
            InstallationEvent.created, InstallationEvent.updated, InstallationEvent.badgeReset,
            InstallationEvent.badgeIncremented, InstallationEvent.opened, InstallationEvent.deleted,
            InstallationEvent.invalidated, InstallationEvent.expired, ObjectEvent.created, ObjectEvent.updated,
            ObjectEvent.deleted, PushEvent.requested, PushEvent.targeted, PushEvent.batchDelivered,
            PushEvent.completed, AppEvent.created, AppEvent.settingsChanged,
        ]
        #expect(expectedTypes.isSubset(of: handled), "types the history missed: \(expectedTypes.subtracting(handled))")

        let tables = db.ledger.allProjections.flatMap(\.tables)
        try await Self.applyEventByEvent(db, tables: tables)
        for (table, minimum) in [
            ("installations", 1), ("invalid_tokens", 1), ("objects", 3), ("class_fields", 3), ("notifications", 3),
            ("push_opens", 3), ("daily_opens", 2), ("daily_usage", 1),
        ] {
            let n = try await db.ledger.pool.query(PGQuery(unsafeSQL: "SELECT count(*) AS n FROM \(table)"))[0].int("n")
            #expect(n >= minimum, "the history should leave rows in \(table), left \(n)")
        }
        // A token invalidated and then registered again by a later save must have been forgiven at least once.
        #expect(history.forgiven > 0)

        let verified = try await db.ledger.rebuilder().run(verify: true)
        #expect(verified.differences.isEmpty, "seed \(seed): \(verified.differences)")
        #expect(verified.events == (try await db.eventCount()))

        // The plain rebuild writes the live tables directly: keep the reference aside and compare.
        try await db.ledger.pool.withTransaction { conn in
            try await conn.execute(unsafeScript: "CREATE SCHEMA reference")
            for table in tables {
                try await conn.execute(unsafeScript: "CREATE TABLE reference.\(table) AS SELECT * FROM public.\(table)")
            }
        }
        let indexesBefore = try await Self.indexDefinitions(db)
        _ = try await db.ledger.rebuilder().run(verify: false)
        var differences: [String] = []
        for table in tables {
            for (a, b) in [("reference", "public"), ("public", "reference")] {
                differences += try await db.ledger.pool.query(
                    PGQuery(
                        unsafeSQL: """
                            SELECT '\(table) only in \(a): ' || row_to_json(d)::text AS r FROM
                                (SELECT * FROM \(a).\(table) EXCEPT ALL SELECT * FROM \(b).\(table)) d
                            """)
                ).map { try $0.string("r") }
            }
        }
        #expect(differences.isEmpty, "seed \(seed):\n\(differences.prefix(10).joined(separator: "\n"))")
        // The indexes and constraints dropped for the load are back, as they were.
        #expect(try await Self.indexDefinitions(db) == indexesBefore)
        #expect(indexesBefore.contains { $0.contains("installations_pkey") })
    }

    /// Every index of the public schema, and the constraint that owns it, if any.
    static func indexDefinitions(_ db: TestDatabase) async throws -> [String] {
        try await db.ledger.pool.query(
            """
            SELECT i.indexdef || coalesce(' / ' || k.conname || ' ' || pg_get_constraintdef(k.oid), '') AS d
            FROM pg_indexes i
            LEFT JOIN pg_constraint k ON k.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass
            WHERE i.schemaname = 'public' ORDER BY 1
            """
        ).map { try $0.string("d") }
    }

    /// Writes the events straight into the log, in order (no inline projection runs).
    static func append(_ events: [ProjectedEvent], to db: TestDatabase) async throws {
        try await db.ledger.pool.withTransaction { conn in
            for e in events {
                try await conn.enqueue(
                    """
                    INSERT INTO events (app_id, stream, version, type, data, metadata)
                    VALUES (\(e.appId), \(e.stream), \(e.version), \(e.type), \(e.data)::jsonb, '{"keyKind":"system"}')
                    """)
            }
        }
    }

    /// The reference: every projection table emptied, then every event of the log through `apply` of every
    /// projection that handles it, one at a time in log order.
    static func applyEventByEvent(_ db: TestDatabase, tables: [String]) async throws {
        let projections = db.ledger.allProjections
        try await db.ledger.pool.withTransaction(isolation: .repeatableRead) { conn in
            try await conn.execute(unsafeScript: "TRUNCATE \(tables.joined(separator: ", "))")
            var checkpoint = Checkpoint.start
            while true {
                let page = try await db.ledger.events.read(
                    after: checkpoint, limit: 500, belowOldestRunningTransaction: false, on: conn)
                guard let last = page.last else { break }
                for event in page {
                    for projection in projections where projection.handles(event.type) {
                        try await projection.apply(event.projected, on: conn, schema: "public")
                    }
                }
                checkpoint = last.checkpoint
            }
        }
    }
}
