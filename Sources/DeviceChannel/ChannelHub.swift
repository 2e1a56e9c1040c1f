import Foundation
import HummingbirdWebSocket
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
        let id: Int64
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
                    appId: batch[0].appId, acks: batch.map { (installationId: $0.installationId, id: $0.id) })
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

    /// Serves one upgraded connection until it closes: presence, the waiting messages, then acks.
    func serve(
        app: App, installationId: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async {
        let key = DeviceKey(appId: app.appId, installationId: installationId)
        let session = DeviceSession(
            key: key, outbound: outbound, ledger: ledger, window: configuration.window, logger: logger)
        let replaced = sessions.withLock { $0.updateValue(session, forKey: key) }
        // One connection per device: a reconnect takes over from a connection not yet noticed dead.
        await replaced?.close()
        ChannelMetrics.connections.increment()
        await recordPresence(
            app.appId,
            PresenceChange(
                installationId: installationId, session: session.id, connected: true, at: ledger.now()))
        await session.send([
            "type": "welcome", "installationId": .string(installationId),
            "pingInterval": .int(Int64(configuration.pingInterval.components.seconds)),
        ])
        if let dropped = try? await ledger.takeDrops(appId: app.appId, installationId: installationId), dropped > 0 {
            await session.send(["type": "dropped", "count": .int(dropped)])
        }
        await session.refill()
        var reason = "closed"
        do {
            for try await message in inbound.messages(maxSize: 64 * 1024) {
                guard case .text(let text) = message else { continue }
                await handle(text, from: session)
            }
        } catch {
            reason = "error"
        }
        await session.close()
        let stillCurrent = sessions.withLock { sessions in
            guard sessions[key] === session else { return false }
            sessions[key] = nil
            return true
        }
        ChannelMetrics.connections.decrement()
        await recordPresence(
            app.appId,
            PresenceChange(
                installationId: installationId, session: session.id, connected: false, at: ledger.now(),
                reason: stillCurrent ? reason : "replaced"))
    }

    /// A device's frame: `{"type":"ack","id":"…"}` or `{"type":"ack","ids":[…]}`; anything else is ignored
    /// (future message types must not break older servers).
    func handle(_ text: String, from session: DeviceSession) async {
        guard let frame = try? JSON.parse(text), frame["type"]?.stringValue == "ack" else { return }
        var ids: [Int64] = []
        for value in [frame["id"]].compactMap({ $0 }) + (frame["ids"]?.arrayValue ?? []) {
            if let id = value.stringValue.flatMap(Int64.init) ?? value.intValue { ids.append(id) }
        }
        let mine = await session.acknowledge(ids)
        guard !mine.isEmpty else { return }
        let key = session.key
        Task {
            await withTaskGroup(of: Void.self) { group in
                for id in mine {
                    group.addTask {
                        do {
                            try await self.acks.submit(
                                Ack(appId: key.appId, installationId: key.installationId, id: id))
                        } catch {
                            // Not recorded: the message stays stored and is sent again on the next refill.
                            self.logger.warning("cannot record channel ack \(id): \(error)")
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
