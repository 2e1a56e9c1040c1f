import Logging
import Postgres
import ServiceLifecycle

/// Runs one asynchronous projection: reads the log from its checkpoint in global order, applies a batch
/// and moves the checkpoint in the same transaction, then waits for a NOTIFY (or a short timeout, in case
/// a notification was missed). Several processes may run the same projector: the checkpoint row is
/// locked while a batch is applied, so each event is applied exactly once.
public struct ProjectorRunner: Service {
    let store: EventStore
    let projection: any Projection
    let wakeups: WakeSignal
    let batchSize: Int
    let logger: Logger

    public init(
        store: EventStore, projection: any Projection, wakeups: WakeSignal = WakeSignal(), batchSize: Int = 500,
        logger: Logger = Logger(label: "pushledger.projector")
    ) {
        self.store = store
        self.projection = projection
        self.wakeups = wakeups
        self.batchSize = batchSize
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                while try await step() >= batchSize {}
            } catch {
                logger.error("projector \(projection.name) failed: \(error)")
            }
            // Woken by NOTIFY; the timeout covers a missed notification.
            await wakeups.wait(timeout: .seconds(1))
        }
    }

    /// Applies one batch; returns how many events it applied. Public so tests and `rebuild` can drive it.
    @discardableResult
    public func step() async throws -> Int {
        try await store.pool.withTransaction { conn in
            let name = projection.name
            try await conn.query(
                "INSERT INTO projector_checkpoints (name) VALUES (\(name)) ON CONFLICT (name) DO NOTHING")
            let row = try await conn.query(
                """
                SELECT transaction_id::text AS xid, position FROM projector_checkpoints
                WHERE name = \(name) FOR UPDATE
                """)[0]
            let checkpoint = Checkpoint(
                transactionId: UInt64(try row.string("xid")) ?? 0, position: try row.int64("position"))
            let events = try await store.read(after: checkpoint, limit: batchSize, on: conn)
            guard let last = events.last else { return 0 }
            for event in events where projection.handles(event.type) {
                try await projection.apply(event.projected, on: conn, schema: "public")
            }
            try await conn.query(
                """
                UPDATE projector_checkpoints
                SET transaction_id = \(String(last.transactionId))::xid8, position = \(last.position), updated_at = now()
                WHERE name = \(name)
                """)
            return events.count
        }
    }

    /// Applies batches until the projector has passed every event committed when this was called. A
    /// transaction still running anywhere in the cluster holds the projector back (that is what keeps it
    /// from skipping late commits), so this waits for such transactions instead of returning early.
    public func catchUp(timeout: Duration = .seconds(120)) async throws {
        let target = try await store.pool.withConnection { conn in
            try await conn.query(
                """
                SELECT transaction_id::text AS xid, position FROM events
                ORDER BY transaction_id DESC, position DESC LIMIT 1
                """
            ).first.map {
                Checkpoint(transactionId: UInt64(try $0.string("xid")) ?? 0, position: try $0.int64("position"))
            }
        }
        guard let target else { return }
        let deadline = store.clock.now().adding(timeout)
        while try await checkpoint() < target {
            if try await step() == 0 {
                guard store.clock.now() < deadline else { throw ProjectorStalled(name: projection.name) }
                try await store.clock.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Where this projector has got to.
    public func checkpoint() async throws -> Checkpoint {
        let rows = try await store.pool.query(
            "SELECT transaction_id::text AS xid, position FROM projector_checkpoints WHERE name = \(projection.name)")
        guard let row = rows.first else { return .start }
        return Checkpoint(transactionId: UInt64(try row.string("xid")) ?? 0, position: try row.int64("position"))
    }
}

/// A projector could not catch up in time because a transaction stayed open.
public struct ProjectorStalled: Error, Sendable {
    public let name: String
}
