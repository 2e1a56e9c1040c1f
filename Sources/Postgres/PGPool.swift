import Logging
import Metrics

/// A bounded pool of connections. Connections are lent inside closures and always come back, so a
/// transaction can never leak past its scope (the shape of postgres-nio's `PostgresClient`).
public actor PGPool {
    public let url: String
    public let maxConnections: Int
    private var idle: [PGConnection] = []
    private var open = 0
    private var waiters: [CheckedContinuation<PGConnection, any Error>] = []
    private var waiting = 0
    private var closed = false
    private let logger: Logger
    /// Each connection's `genericPlanLifetime` (`PGConnection.connect(url:genericPlanLifetime:)`).
    private let genericPlanLifetime: Duration

    public init(
        url: String, maxConnections: Int = 8, logger: Logger = Logger(label: "pushledger.pg"),
        genericPlanLifetime: Duration = .seconds(10)
    ) {
        self.url = url
        self.maxConnections = max(1, maxConnections)
        self.logger = logger
        self.genericPlanLifetime = genericPlanLifetime
    }

    /// Lends a connection for the duration of `body`.
    public nonisolated func withConnection<T: Sendable>(
        _ body: (PGConnection) async throws -> T
    ) async throws -> T {
        let conn = try await acquire()
        do {
            // The borrower runs on the connection's own queue, so its statements need no thread hops.
            let value = try await withTaskExecutorPreference(conn.executor) { () async throws -> T in
                let value = try await body(conn)
                try await conn.flush()
                return value
            }
            await release(conn)
            return value
        } catch {
            if let error = error as? PGError {
                let kind =
                    error.isConnectionLoss ? "connection" : (error.sqlState.map { String($0.prefix(2)) } ?? "other")
                Counter(label: "pushledger_pg_errors_total", dimensions: [("class", kind)]).increment()
            }
            await conn.discardPending()
            await release(conn)
            throw error
        }
    }

    /// Runs `body` inside `BEGIN … COMMIT`; any thrown error rolls back.
    public nonisolated func withTransaction<T: Sendable>(
        isolation: PGIsolation = .readCommitted, _ body: (PGConnection) async throws -> T
    ) async throws -> T {
        try await withConnection { conn in
            try await conn.transaction(isolation: isolation, body)
        }
    }

    /// Convenience for one statement on any connection.
    @discardableResult
    public nonisolated func query(_ query: PGQuery) async throws -> PGRows {
        try await withConnection { try await $0.query(query) }
    }

    public func close() async {
        closed = true
        let conns = idle
        idle.removeAll()
        for waiter in waiters { waiter.resume(throwing: PGError(kind: .connection, message: "pool is closed")) }
        waiters.removeAll()
        for conn in conns { await conn.close() }
    }

    private func acquire() async throws -> PGConnection {
        defer { recordUsage() }
        if closed { throw PGError(kind: .connection, message: "pool is closed") }
        if let conn = idle.popLast() { return conn }
        if open < maxConnections {
            open += 1
            do {
                return try await openConnection()
            } catch {
                open -= 1
                Counter(label: "pushledger_pg_errors_total", dimensions: [("class", "connect")]).increment()
                throw error
            }
        }
        waiting += 1
        defer { waiting -= 1 }
        recordUsage()
        return try await withCheckedThrowingContinuation { waiters.append($0) }
    }

    private func openConnection() async throws -> PGConnection {
        try await PGConnection.connect(url: url, genericPlanLifetime: genericPlanLifetime)
    }

    /// Connections lent out and callers waiting for one (`pushledger_pg_pool_*` gauges).
    private func recordUsage() {
        Gauge(label: "pushledger_pg_pool_connections_in_use").record(open - idle.count)
        Gauge(label: "pushledger_pg_pool_waiting").record(waiting)
    }

    private func release(_ conn: PGConnection) async {
        defer { recordUsage() }
        // A connection left mid-transaction (a cancelled body) or broken is not trusted again.
        let idleNow = await conn.transactionStatusIsIdle
        let reusable = !conn.isBroken && idleNow
        if !reusable {
            await conn.close()
            open -= 1
            if !waiters.isEmpty, !closed {
                let waiter = waiters.removeFirst()
                open += 1
                do {
                    waiter.resume(returning: try await openConnection())
                } catch {
                    open -= 1
                    waiter.resume(throwing: error)
                }
            }
            return
        }
        if !waiters.isEmpty {
            waiters.removeFirst().resume(returning: conn)
        } else if closed {
            await conn.close()
            open -= 1
        } else {
            idle.append(conn)
        }
    }
}

/// Transaction isolation levels used by the ledger.
public enum PGIsolation: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

extension PGConnection {
    /// Runs `body` inside a transaction on this connection.
    public func transaction<T: Sendable>(
        isolation: PGIsolation = .readCommitted, _ body: (PGConnection) async throws -> T
    ) async throws -> T {
        // Queued: BEGIN travels with the transaction's first statement, saving a round trip.
        try await enqueue(PGQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation.rawValue)"))
        do {
            let value = try await body(self)
            try await query("COMMIT")
            return value
        } catch {
            await discardPending()
            _ = try? await query("ROLLBACK")
            throw error
        }
    }
}
