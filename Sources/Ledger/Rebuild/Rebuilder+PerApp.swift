import Foundation
import Postgres
import PushCore

/// The rebuild on a distributed log (Citus, `CitusLayout`): app by app. Every projected row belongs to one app and
/// every projection reads only its own app's events, so an app's tables are rebuilt from the app's events alone.
/// Each app is one REPEATABLE READ transaction whose statements all name the app, so they run on its worker, in
/// one snapshot there; the scratch schema of `--verify` is made (and dropped) outside them, as Citus makes a
/// table's shards in a transaction of their own. Every event goes through its projections' `applyAll`, page by
/// page: the folds (`LogFoldingProjection`) and summaries (`LogSummarizingProjection`) of the whole-log rebuild
/// are optimisations proved equal to it (`LogFoldTests`), and Citus cannot run the folds on a shard (their
/// statement writes a table from inside another table's query, which it refuses on a worker).
extension Rebuilder {
    func runPerApp(
        verify: Bool, batchSize: Int, started: Date, progress: (@Sendable (Int, Int?) -> Void)?
    ) async throws -> Report {
        var phases: [(name: String, seconds: Double)] = []
        var phaseStarted = started
        func endPhase(_ name: String) {
            let now = Date()
            phases.append((name, now.timeIntervalSince(phaseStarted)))
            phaseStarted = now
        }
        let tables = projections.flatMap(\.tables)
        let pool = store.pool
        let apps = try await store.appIds(on: pool)
        let total = try await pool.query("SELECT count(*) AS n FROM events")[0].int("n")
        progress?(0, total)
        let schema = verify ? Self.schema : "public"
        if verify { try await makeScratch(tables) }
        endPhase("prepare")

        var events = 0
        var differences: [TableDifference] = []
        for app in apps {
            let (count, found) = try await pool.withTransaction(isolation: .repeatableRead) { conn in
                if !verify {
                    try await RebuildTarget.lock(tables, on: conn)
                    for table in tables {
                        try await conn.query("DELETE FROM \(unsafeRaw: table) WHERE app_id = \(app)")
                    }
                }
                let count = try await conn.query("SELECT count(*) AS n FROM events WHERE app_id = \(app)")[0].int("n")
                var checkpoint = Checkpoint.start
                while true {
                    let page = try await store.projectedPage(
                        appId: app, after: checkpoint, skipping: [], limit: batchSize, on: conn)
                    guard let last = page.last else { break }
                    try await apply(page.events, through: projections, into: schema, on: conn)
                    checkpoint = last
                }
                var found: [TableDifference] = []
                if verify {
                    for table in tables {
                        let d = try await compare(table, app: app, on: conn)
                        if !d.onlyLive.isEmpty || !d.onlyRebuilt.isEmpty { found.append(d) }
                    }
                }
                return (count, found)
            }
            events += count
            differences += found
            progress?(events, total)
        }
        endPhase("apps")
        if verify {
            try await pool.withConnection { try await $0.execute(unsafeScript: "DROP SCHEMA \(Self.schema) CASCADE") }
            endPhase("compare")
        } else {
            try await pool.withConnection { conn in
                try await conn.execute(unsafeScript: "ANALYZE \(tables.map { "public.\($0)" }.joined(separator: ", "))")
            }
            endPhase("statistics")
        }
        return Report(
            events: events, seconds: Date().timeIntervalSince(started), phases: phases, differences: differences)
    }

    /// The scratch schema's tables, each distributed like its live one (by app, co-located with the log), so that
    /// an app's statements write them on its worker.
    private func makeScratch(_ tables: [String]) async throws {
        try await store.pool.withConnection { conn in
            try await conn.execute(
                unsafeScript: "DROP SCHEMA IF EXISTS \(Self.schema) CASCADE; CREATE SCHEMA \(Self.schema)")
            for table in tables {
                try await conn.execute(
                    unsafeScript: """
                        CREATE TABLE \(Self.schema).\(table) (LIKE public.\(table)
                            INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS INCLUDING INDEXES)
                        """)
                try await conn.query(
                    """
                    SELECT create_distributed_table(\("\(Self.schema).\(table)"), 'app_id', colocate_with => 'events')
                    """)
            }
        }
    }
}
