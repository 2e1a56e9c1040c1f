import Logging
import Synchronization

/// A bounded pool of connections. Connections are lent inside closures and always come back, so a
/// transaction can never leak past its scope (the shape of postgres-nio's `PostgresClient`).
///
/// A lock, not an actor: lending and returning a connection take a few instructions, and as an actor they
/// cost every borrower two or three thread switches per transaction (to the actor, to the connection's
/// queue to check its state, back to the actor). On the installation-save path that was a fifth of each
/// batch's time.
public final class PGPool: Sendable {
    public let url: String
    public let maxConnections: Int
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var idle: [PGConnection] = []
        var open = 0
        var waiters: [CheckedContinuation<PGConnection, any Error>] = []
        var closed = false
    }

    /// What a borrower gets without waiting.
    private enum Lending {
        case ready(PGConnection)
        /// Room for one more connection, counted as open already: the borrower connects it.
        case connect
        case wait
    }

    public init(url: String, maxConnections: Int = 8, logger: Logger = Logger(label: "pushledger.pg")) {
        self.url = url
        self.maxConnections = max(1, maxConnections)
        self.logger = logger
    }

    /// Lends a connection for the duration of `body`.
    public func withConnection<T: Sendable>(
        _ body: (PGConnection) async throws -> T
    ) async throws -> T {
        let conn = try await acquire()
        // The borrower runs on the connection's own queue, so its statements need no thread hops; the
        // connection is checked and handed back from there too.
        return try await withTaskExecutorPreference(conn.executor) { () async throws -> T in
            let value: T
            do {
                value = try await body(conn)
                try await conn.flush()
            } catch {
                await conn.discardPending()
                await release(conn)
                throw error
            }
            await release(conn)
            return value
        }
    }

    /// Runs `body` inside `BEGIN … COMMIT`; any thrown error rolls back.
    public func withTransaction<T: Sendable>(
        isolation: PGIsolation = .readCommitted, _ body: (PGConnection) async throws -> T
    ) async throws -> T {
        try await withConnection { conn in
            try await conn.transaction(isolation: isolation, body)
        }
    }

    /// Convenience for one statement on any connection.
    @discardableResult
    public func query(_ query: PGQuery) async throws -> PGRows {
        try await withConnection { try await $0.query(query) }
    }

    public func close() async {
        let (conns, waiters) = state.withLock { state in
            state.closed = true
            defer {
                state.idle.removeAll()
                state.waiters.removeAll()
            }
            return (state.idle, state.waiters)
        }
        for waiter in waiters { waiter.resume(throwing: PGError(kind: .connection, message: "pool is closed")) }
        for conn in conns { await conn.close() }
    }

    private func acquire() async throws -> PGConnection {
        switch try state.withLock({ state throws(PGError) in try lend(&state) }) {
        case .ready(let conn): return conn
        case .connect: return try await connect()
        case .wait: break
        }
        // Look again under the lock that queues us: a connection may have come back in between.
        return try await withCheckedThrowingContinuation { continuation in
            let lending = state.withLock { state -> Result<Lending, PGError> in
                let lending = Result { () throws(PGError) in try lend(&state) }
                if case .success(.wait) = lending { state.waiters.append(continuation) }
                return lending
            }
            switch lending {
            case .success(.ready(let conn)): continuation.resume(returning: conn)
            case .success(.connect): Task { await self.connect(for: continuation) }
            case .success(.wait): break
            case .failure(let error): continuation.resume(throwing: error)
            }
        }
    }

    private func lend(_ state: inout State) throws(PGError) -> Lending {
        if state.closed { throw PGError(kind: .connection, message: "pool is closed") }
        if let conn = state.idle.popLast() { return .ready(conn) }
        guard state.open < maxConnections else { return .wait }
        state.open += 1
        return .connect
    }

    /// Opens the connection `lend` made room for; gives the room back if that fails.
    private func connect() async throws -> PGConnection {
        do {
            return try await PGConnection.connect(url: url)
        } catch {
            state.withLock { $0.open -= 1 }
            throw error
        }
    }

    private func connect(for waiter: CheckedContinuation<PGConnection, any Error>) async {
        do {
            waiter.resume(returning: try await connect())
        } catch {
            waiter.resume(throwing: error)
        }
    }

    private func release(_ conn: PGConnection) async {
        // A connection left mid-transaction (a cancelled body) or broken is not trusted again.
        let reusable = !conn.isBroken
        let idleNow = reusable ? await conn.transactionStatusIsIdle : false
        if reusable, idleNow {
            let (waiter, closeIt) = state.withLock { state -> (CheckedContinuation<PGConnection, any Error>?, Bool) in
                if !state.waiters.isEmpty { return (state.waiters.removeFirst(), false) }
                if state.closed {
                    state.open -= 1
                    return (nil, true)
                }
                state.idle.append(conn)
                return (nil, false)
            }
            waiter?.resume(returning: conn)
            if closeIt { await conn.close() }
            return
        }
        await conn.close()
        // Its room goes to the longest waiter, who gets a fresh connection.
        let waiter = state.withLock { state -> CheckedContinuation<PGConnection, any Error>? in
            guard !state.waiters.isEmpty, !state.closed else {
                state.open -= 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        if let waiter { await connect(for: waiter) }
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
