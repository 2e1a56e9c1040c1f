import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// `rebuild` folds installations and objects inside PostgreSQL and applies only the other projections event by
/// event. Both its forms (`--verify` into a scratch schema, and the plain rebuild into the locked live tables)
/// must give exactly what `apply`, event by event in log order, gives for every projection: the reference here
/// is that walk, made into the live tables after the whole seeded random history was written to the log.
@Suite("Rebuild: folds equal apply, event by event", .requiresPostgreSQL)
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

        try await Self.expectBothRebuildsEqualReference(db, tables: tables, label: "seed \(seed)")
    }

    /// Installation streams whose later events are only touches are made from their creation and a summary of
    /// the touches; the others go through the replay aggregate. Each shape of either, by hand: the last badge
    /// given wins (a badge increment without one, or a null one, leaves it), `updatedAt` only moves with a touch
    /// that gives one (a push's badge increment does not), a touch before the creation does nothing.
    @Test("streams of touches after a creation fold to what apply leaves")
    func touchOnlyStreamsEqualPerEventApply() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "touches", appId: Self.app)
        func t(_ minute: Int) -> JSON { .string("2026-03-01T10:\(String(format: "%02d", minute)):00.000Z") }
        var events: [ProjectedEvent] = []
        func add(_ id: String, _ type: String, _ data: [String: JSON]) {
            let stream = InstallationEvent.stream(id)
            let version = events.filter { $0.stream == stream }.count + 1
            var data = data
            data["objectId"] = .string(id)
            events.append(
                try! ProjectedEvent(appId: Self.app, stream: stream, version: version, type: type, data: .object(data)))
        }
        func create(_ id: String, badge: Int64? = nil, updated: Int = 0) {
            var fields: [String: JSON] = ["deviceType": "ios", "deviceToken": .string("token-\(id)")]
            if let badge { fields["badge"] = .int(badge) }
            add(id, InstallationEvent.created, ["fields": .object(fields), "createdAt": t(0), "updatedAt": t(updated)])
        }
        create("a", badge: 2)
        add("a", InstallationEvent.opened, ["updatedAt": t(2), "at": t(2), "kind": "app", "platform": "ios"])
        add("a", InstallationEvent.badgeIncremented, ["badge": 3, "at": t(3)])
        add("a", InstallationEvent.badgeIncremented, ["at": t(4)])
        add("a", InstallationEvent.opened, ["updatedAt": t(5), "at": t(5), "kind": "app", "platform": "ios"])
        create("b", badge: 9)
        add("b", InstallationEvent.badgeReset, ["updatedAt": t(2)])
        add("b", InstallationEvent.badgeIncremented, ["badge": 1, "at": t(3)])
        create("c")
        add("c", InstallationEvent.badgeIncremented, ["badge": 7, "updatedAt": .null, "at": t(1)])
        add("c", InstallationEvent.opened, ["badge": .null, "at": t(2), "kind": "app", "platform": "ios"])
        add("d", InstallationEvent.opened, ["updatedAt": t(1), "at": t(1), "kind": "app", "platform": "ios"])
        create("d")
        add("d", InstallationEvent.badgeReset, ["updatedAt": t(3)])
        create("e")
        add("e", InstallationEvent.opened, ["updatedAt": t(1), "at": t(1), "kind": "app", "platform": "ios"])
        add("e", InstallationEvent.deleted, ["updatedAt": t(2)])
        create("f")
        // Created with an `updatedAt` of its own (an import writes that; the server writes them equal).
        create("g", updated: 4)
        create("h", updated: 6)
        add("h", InstallationEvent.badgeIncremented, ["badge": 2, "at": t(7)])
        // Interleaved in the log, as installations are used at once.
        try await Self.append(events.sorted { ($0.version, $0.stream) < ($1.version, $1.stream) }, to: db)

        let tables = db.ledger.allProjections.flatMap(\.tables)
        try await Self.applyEventByEvent(db, tables: tables)
        // By hand, from the events above.
        let rows = try await db.ledger.pool.query(
            """
            SELECT object_id, badge, version, to_char(updated_at AT TIME ZONE 'UTC', 'MI') AS minute
            FROM installations ORDER BY object_id
            """
        ).map {
            "\(try $0.string("object_id")) \($0.optionalInt64("badge").map(String.init) ?? "-") "
                + "v\(try $0.int("version")) \(try $0.string("minute"))"
        }
        #expect(rows == ["a 3 v5 05", "b 1 v3 02", "c 7 v3 00", "d 0 v3 03", "f - v1 00", "g - v1 04", "h 2 v2 06"])
        try await Self.expectBothRebuildsEqualReference(db, tables: tables, label: "touches")
    }

    /// `rebuild --verify` finds no difference with the tables as they are, and the plain rebuild leaves them
    /// row for row as they were, with the same indexes and constraints.
    static func expectBothRebuildsEqualReference(_ db: TestDatabase, tables: [String], label: String) async throws {
        let verified = try await db.ledger.rebuilder().run(verify: true)
        #expect(verified.differences.isEmpty, "\(label): \(verified.differences)")
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
        #expect(differences.isEmpty, "\(label):\n\(differences.prefix(10).joined(separator: "\n"))")
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
                    VALUES (\(e.appId), \(e.stream), \(e.version), \(e.type), \(e.storedData)::jsonb, '{"keyKind":"system"}')
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

@Suite("Rebuild: the log scan", .requiresPostgreSQL)
struct LogScanTests {
    /// A PushTargeted page reaches the projections as the number of its targets, everything else as written; an
    /// event whose data its kind cannot read (targets that are not a list) stops the scan rather than being
    /// projected as something else.
    @Test("a PushTargeted's targets travel as their number, everything else as written; bad data stops the scan")
    func targetsTravelAsTheirNumber() async throws {
        let db = try await TestDatabase.make()
        let targets = (0..<37).map { i in
            PushTarget(objectId: "i\(i)", deviceType: "ios", token: "tok\(i)", profile: nil, badge: nil)
        }
        let page = PushTargeted(objectId: "p1", batch: 0, targets: targets, at: "2026-01-01T00:00:00.000Z")
        let completed = PushMilestone(objectId: "p1", at: "2026-01-01T00:00:01.000Z")
        try await db.ledger.pool.withTransaction { conn in
            for (version, type, data) in [(1, PushEvent.targeted, page.json), (2, PushEvent.completed, completed.json)]
            {
                _ = try await conn.query(
                    """
                    INSERT INTO events (app_id, stream, version, type, data, metadata)
                    VALUES ('scan', 'push:p1', \(version), \(type), \(data)::jsonb, '{}')
                    """)
            }
        }
        var read: [ProjectedEvent] = []
        try await db.ledger.pool.withTransaction(isolation: .repeatableRead) { conn in
            try await db.ledger.events.forEachPage(skipping: [], pageSize: 2, sharingSnapshotOf: conn) { read += $0 }
        }
        #expect(read.map(\.type) == [PushEvent.targeted, PushEvent.completed])
        guard case .push(.targeted(let counted)) = read[0].event else {
            Issue.record("read \(read[0].event)")
            return
        }
        #expect(counted.devices == 37 && counted.targets.isEmpty && counted.batch == 0 && counted.at == page.at)
        #expect(read[1].event == .push(.completed(completed)))

        try await db.ledger.pool.withTransaction { conn in
            _ = try await conn.query(
                """
                INSERT INTO events (app_id, stream, version, type, data, metadata)
                VALUES ('scan', 'push:p2', 1, \(PushEvent.targeted), '{"objectId":"p2","batch":0,"targets":"not a list"}', '{}')
                """)
        }
        await #expect(throws: MalformedPayload.self) {
            try await db.ledger.pool.withTransaction(isolation: .repeatableRead) { conn in
                try await db.ledger.events.forEachPage(skipping: [], pageSize: 2, sharingSnapshotOf: conn) { _ in }
            }
        }
    }

    /// `meanwhile` (a rebuild's folds) runs its statements inline on the writing connection's thread; the first
    /// page must be read beside them, not after. Here `meanwhile`'s one statement waits (up to 10 s) for the
    /// reader's `FETCH` to show in `pg_stat_activity`, and fails if it never does: a fetch that inherited the
    /// writing connection's executor would only start once the statement ended.
    @Test("the first page is read while meanwhile's statement runs on the writing connection")
    func firstPageIsReadBesideMeanwhile() async throws {
        let db = try await TestDatabase.make()
        try await LogFoldTests.append(
            [
                try ProjectedEvent(
                    appId: "scan", stream: "push:p1", version: 1, type: PushEvent.completed,
                    data: PushMilestone(objectId: "p1", at: "2026-01-01T00:00:00.000Z").json)
            ], to: db)
        var read = 0
        try await db.ledger.pool.withTransaction(isolation: .repeatableRead) { conn in
            try await db.ledger.events.forEachPage(
                skipping: [], pageSize: 10, sharingSnapshotOf: conn,
                meanwhile: {
                    try await conn.execute(
                        unsafeScript: """
                            DO $$ BEGIN
                                FOR i IN 1..1000 LOOP
                                    -- pg_stat_activity is read once per transaction unless cleared.
                                    PERFORM pg_stat_clear_snapshot();
                                    PERFORM 1 FROM pg_stat_activity
                                    WHERE pid <> pg_backend_pid() AND datname = current_database()
                                      AND query LIKE 'FETCH % FROM log_scan';
                                    IF FOUND THEN RETURN; END IF;
                                    PERFORM pg_sleep(0.01);
                                END LOOP;
                                RAISE EXCEPTION 'the first page was not read while meanwhile ran';
                            END $$
                            """)
                }
            ) { read += $0.count }
        }
        #expect(read == 1)
    }
}

extension ProjectedEvent {
    /// The data to store for it in a test's log. A page of targets (read counted, as projections read it) is
    /// stored as the rebuild's scan hands it on: its number of targets in place of the list.
    var storedData: JSON {
        switch event {
        case .push(.targeted(let page)):
            [
                "objectId": .string(page.objectId), "batch": .int(page.batch), "at": .string(page.at),
                PushTargeted.targetCountKey: .int(page.devices),
            ]
        default: event.json
        }
    }
}
