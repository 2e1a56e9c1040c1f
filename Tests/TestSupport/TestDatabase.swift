import Foundation
import Ledger
import Postgres
import PushCore

/// A fresh, migrated database on the throw-away cluster that `scripts/test` starts
/// (`PUSHLEDGER_TEST_PG`, a libpq URI without a database name).
public struct TestDatabase: Sendable {
    public let url: String
    public let ledger: LedgerComponents

    public static var clusterURL: String? { ProcessInfo.processInfo.environment["PUSHLEDGER_TEST_PG"] }
    public static var isAvailable: Bool { clusterURL != nil }

    /// Creates `t_<random>` and applies the migrations. Every store reads the time from `clock`.
    public static func make(migrate: Bool = true, clock: ServiceClock = .system) async throws -> TestDatabase {
        guard let base = clusterURL else { throw PGError(kind: .connection, message: "PUSHLEDGER_TEST_PG is not set") }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let admin = try await PGConnection.connect(url: base + "/postgres")
        try await admin.execute(unsafeScript: "CREATE DATABASE \(name)")
        await admin.close()
        let url = base + "/" + name
        let ledger = LedgerComponents(databaseURL: url, maxConnections: 12, clock: clock)
        if migrate { try await LedgerMigrations.migrate(pool: ledger.pool) }
        return TestDatabase(url: url, ledger: ledger)
    }

    /// The workers' ports of the Citus cluster `scripts/test-citus` runs (its coordinator is `PUSHLEDGER_TEST_PG`,
    /// on the same host).
    public static var citusWorkers: [Int] {
        (ProcessInfo.processInfo.environment["PUSHLEDGER_TEST_CITUS_WORKERS"] ?? "").split(separator: ",")
            .compactMap { Int($0) }
    }

    /// A fresh database on the Citus cluster, migrated and laid out by `CitusLayout.distribute` (four shards a
    /// table: enough to put apps on both workers). It is a database on every node, the workers registered with the
    /// coordinator: a Citus cluster is one database.
    public static func makeDistributed(clock: ServiceClock = .system) async throws -> TestDatabase {
        guard let base = clusterURL, let coordinator = URLComponents(string: base), let host = coordinator.host,
            let port = coordinator.port, !citusWorkers.isEmpty
        else {
            throw PGError(
                kind: .connection, message: "PUSHLEDGER_TEST_PG and PUSHLEDGER_TEST_CITUS_WORKERS are not set")
        }
        let name = "c_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        for nodePort in [port] + citusWorkers {
            let node = "postgresql://postgres@\(host):\(nodePort)"
            let admin = try await PGConnection.connect(url: node + "/postgres")
            try await admin.execute(unsafeScript: "CREATE DATABASE \(name)")
            await admin.close()
            let db = try await PGConnection.connect(url: node + "/" + name)
            try await db.execute(unsafeScript: "CREATE EXTENSION citus; CREATE EXTENSION IF NOT EXISTS postgis")
            await db.close()
        }
        let url = base + "/" + name
        let setup = try await PGConnection.connect(url: url)
        try await setup.query("SELECT citus_set_coordinator_host(\(host), \(port))")
        for worker in citusWorkers { try await setup.query("SELECT citus_add_node(\(host), \(worker))") }
        await setup.close()
        let ledger = LedgerComponents(databaseURL: url, maxConnections: 12, clock: clock)
        try await LedgerMigrations.migrate(pool: ledger.pool)
        try await CitusLayout.distribute(pool: ledger.pool, shardCount: 4)
        return TestDatabase(url: url, ledger: ledger)
    }

    public func connect() async throws -> PGConnection { try await PGConnection.connect(url: url) }

    /// The `genericPlanLifetime` of connections whose plans a test counts in `pg_prepared_statements`: longer
    /// than any run, so that under the full suite's load no statement is prepared afresh mid-test, its counts
    /// started again (a slow run would otherwise count too few generic plans).
    public static let planCountingLifetime: Duration = .seconds(3600)

    /// A connection that keeps its prepared statements, and their counts of plans, for the whole test.
    public func connectCountingPlans() async throws -> PGConnection {
        try await PGConnection.connect(url: url, genericPlanLifetime: Self.planCountingLifetime)
    }

    public func eventCount() async throws -> Int { try await ledger.events.count() }

    /// Saves `count` iOS installations on `channels`, their device tokens the numbers from `firstToken` on
    /// as 64 hex digits, at `now`; returns their objectIds in that order.
    public func saveIOSInstallations(
        app: String, count: Int, channels: [String] = ["all"], firstToken: Int = 1, now: Date? = nil
    ) async throws -> [String] {
        var ids: [String] = []
        for i in firstToken..<(firstToken + count) {
            ids.append(
                try await ledger.installations.save(
                    appId: app,
                    body: [
                        "deviceType": "ios", "deviceToken": .string(String(format: "%064x", i)),
                        "channels": .array(channels.map(JSON.string)),
                    ],
                    metadata: EventMetadata(keyKind: "master"), now: now
                ).objectId)
        }
        return ids
    }
}
