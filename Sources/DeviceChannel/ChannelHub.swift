import Foundation
import Ledger
import Logging
import PushCore
import Synchronization

/// The device sessions connected to this process, and the group-committed writers their acks and presence
/// changes go through. Other processes reach a device connected here only through PostgreSQL (the stored
/// messages and the NOTIFY that announces them), never through this map.
public final class ChannelHub: Sendable {
    let ledger: ChannelLedger
    let configuration: ChannelConfiguration
    let logger: Logger
    private let sessions = Mutex<[DeviceKey: DeviceSession]>([:])
    private let acks: GroupCommitQueue<Ack, Void>
    private let presence: GroupCommitQueue<PresenceCommand, Void>

    struct Ack: Sendable {
        let appId: String
        let installationId: String
        /// The message's number in the device's sequence.
        let seq: Int64
    }

    struct PresenceCommand: Sendable {
        let appId: String
        let change: PresenceChange
    }

    public init(ledger: ChannelLedger, configuration: ChannelConfiguration, logger: Logger) {
        self.ledger = ledger
        self.configuration = configuration
        self.logger = logger
        acks = GroupCommitQueue(maxBatch: 2000, maxRunning: 2, group: \.appId, claims: { _ in [] }) { batch in
            // Exactly once even when a flush is repeated: the rows are deleted by the transaction that counts them.
            do {
                try await ledger.acknowledge(
                    appId: batch[0].appId, acks: batch.map { (installationId: $0.installationId, seq: $0.seq) })
                ChannelMetrics.acked.increment(by: batch.count)
                return batch.map { _ in .success(()) }
            } catch {
                return batch.map { _ in .failure(error) }
            }
        }
        // A device's connect and disconnect never share a batch, so they are recorded in the order they happened.
        presence = GroupCommitQueue(
            maxBatch: 2000, maxRunning: 2, group: \.appId, claims: { [$0.change.installationId] }
        ) { batch in
            do {
                try await ledger.recordPresence(appId: batch[0].appId, changes: batch.map(\.change))
                return batch.map { _ in .success(()) }
            } catch {
                return batch.map { _ in .failure(error) }
            }
        }
    }

    /// How many devices are connected to this process.
    public var connectionCount: Int { sessions.withLock { $0.count } }

    /// A device connected (called in its connection's event loop): its session takes over from any earlier
    /// connection of the device, which is closed, and then, in a task of its own, records the connection and
    /// writes the welcome and the waiting messages.
    func open(app: App, installationId: String, dialect: ChannelDialect, socket: DeviceSocket) -> DeviceSession {
        let key = DeviceKey(appId: app.appId, installationId: installationId)
        let session = DeviceSession(
            key: key, dialect: dialect, socket: socket, ledger: ledger, window: configuration.window, logger: logger)
        let replaced = sessions.withLock { $0.updateValue(session, forKey: key) }
        ChannelMetrics.connections.increment()
        let pingInterval = configuration.pingInterval
        Task {
            // One connection per device: a reconnect takes over from a connection not yet noticed dead, which is
            // closed now rather than left to answer pings until its client goes.
            if let replaced { await replaced.replaced() }
            await recordPresence(
                app.appId,
                PresenceChange(
                    installationId: installationId, session: session.id, connected: true, at: ledger.clock.now()))
            var dropped: Int64 = 0
            if dialect.tellsDrops {
                dropped = (try? await ledger.takeDrops(appId: app.appId, installationId: installationId)) ?? 0
            }
            await session.start(
                greeting: dialect.greeting(installationId: installationId, pingInterval: pingInterval, dropped: dropped)
            )
        }
        return session
    }

    /// A device's connection closed (in its event loop). Recorded after its opening, so presence events come
    /// in the order they happened.
    func closed(_ session: DeviceSession, reason: String) {
        let key = session.key
        Task {
            await session.close()
            let stillCurrent = sessions.withLock { sessions in
                guard sessions[key] === session else { return false }
                sessions[key] = nil
                return true
            }
            ChannelMetrics.connections.decrement()
            await recordPresence(
                key.appId,
                PresenceChange(
                    installationId: key.installationId, session: session.id, connected: false, at: ledger.clock.now(),
                    reason: stillCurrent ? reason : "replaced"))
        }
    }

    /// A JSON-dialect text frame from a device (in its event loop).
    func received(_ text: String, from session: DeviceSession) {
        guard let seqs = ChannelDialect.jsonAcks(text) else { return }
        acknowledged(seqs, from: session)
    }

    /// A device acknowledged the messages `seqs` (in any dialect, from its event loop).
    func acknowledged(_ seqs: [Int64], from session: DeviceSession) {
        Task { await acknowledge(seqs, from: session) }
    }

    /// Records the acknowledgements that were `session`'s to make; each counts as its push's success once.
    func acknowledge(_ seqs: [Int64], from session: DeviceSession) async {
        let mine = await session.acknowledge(seqs)
        guard !mine.isEmpty else { return }
        let key = session.key
        Task {
            await withTaskGroup(of: Void.self) { group in
                for seq in mine {
                    group.addTask {
                        do {
                            try await self.acks.submit(
                                Ack(appId: key.appId, installationId: key.installationId, seq: seq))
                        } catch {
                            // Not recorded: the message stays stored and is sent again on the next refill.
                            self.logger.warning("cannot record channel ack \(seq): \(error)")
                        }
                    }
                }
            }
            await session.recorded(mine)
        }
    }

    func recordPresence(_ appId: String, _ change: PresenceChange) async {
        do {
            try await presence.submit(PresenceCommand(appId: appId, change: change))
        } catch {
            logger.warning("cannot record presence of \(change.installationId): \(error)")
        }
    }

    /// Hands newly stored messages to the devices connected here.
    func deliver(_ messages: [ChannelMessage]) async {
        let byDevice = Dictionary(grouping: messages) {
            DeviceKey(appId: $0.appId, installationId: $0.installationId)
        }
        let targets = sessions.withLock { sessions in
            byDevice.compactMap { key, messages in sessions[key].map { ($0, messages) } }
        }
        await withTaskGroup(of: Void.self) { group in
            for (session, messages) in targets { group.addTask { await session.deliver(messages) } }
        }
    }

    /// Reads every connected device's waiting messages again (after announcements may have been missed).
    func refillAll() async {
        let all = sessions.withLock { Array($0.values) }
        await withTaskGroup(of: Void.self) { group in
            for session in all { group.addTask { await session.refill() } }
        }
    }

    /// The sessions alive here, for the presence heartbeat.
    func sessionIds() async -> [String] {
        sessions.withLock { $0.values.map(\.id) }
    }
}
