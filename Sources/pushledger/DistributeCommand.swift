import ArgumentParser
import Ledger
import Postgres
import PushCore

/// `pushledger distribute`: lays a migrated database out on Citus (docs/scaling.md), on the coordinator.
struct DistributeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "distribute",
        abstract: "Distribute a migrated database on Citus by app (run on the coordinator; idempotent).",
        discussion: """
            Needs the citus extension in the database and its workers registered (docs/scaling.md). Every table \
            with an app_id column is distributed by it, co-located with the event log; apps and \
            channel_heartbeats become reference tables. Existing rows move to the workers. Run again after a \
            migration that added a table (migrate does it by itself on a distributed database).
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Shards per distributed table (Citus' own default, 32, when not given).")
    var shardCount: Int?

    func run() async throws {
        if let shardCount, shardCount < 1 { throw ValidationError("--shard-count must be at least 1.") }
        let pool = PGPool(url: try database.url(), maxConnections: 1)
        let report = try await CitusLayout.distribute(pool: pool, shardCount: shardCount)
        await pool.close()
        let out: JSON = [
            "distributed": .array(report.distributed.map(JSON.string)),
            "reference": .array(report.reference.map(JSON.string)),
        ]
        print(out.encoded())
    }
}
