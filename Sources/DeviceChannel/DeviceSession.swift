import Foundation
import HummingbirdWebSocket
import Ledger
import Logging
import PushCore

/// Which device a session serves: an app's installation, by the `installationId` it connects with.
struct DeviceKey: Hashable, Sendable {
    let appId: String
    let installationId: String
}

/// One device connection. Messages are written only after they are stored (the caller read them from
/// PostgreSQL), at most `window` unacknowledged at once; the rest are read again from the database as acks
/// free the window, so nothing is held in memory that the database does not also hold. Delivery is
/// at-least-once: a message may be written twice (a reconnect, a batch announced while the device's backlog
/// is read), and devices drop duplicates by id.
actor DeviceSession {
    let key: DeviceKey
    /// Names this connection in presence events, so a late disconnect never ends a newer session.
    let id: String
    private let outbound: WebSocketOutboundWriter
    private let ledger: ChannelLedger
    private let window: Int
    private let logger: Logger
    /// Written, not yet acknowledged.
    private var inFlight: Set<Int64> = []
    /// Acknowledged by the device, not yet recorded: never written again meanwhile.
    private var acknowledged: Set<Int64> = []
    /// More messages may wait in the database than the window let through.
    private var backlog = false
    private var closed = false

    init(key: DeviceKey, outbound: WebSocketOutboundWriter, ledger: ChannelLedger, window: Int, logger: Logger) {
        self.key = key
        self.id = RandomID.make(length: 16)
        self.outbound = outbound
        self.ledger = ledger
        self.window = window
        self.logger = logger
    }

    /// Writes what fits in the window of `messages` (all for this device), skipping those already written.
    func deliver(_ messages: [ChannelMessage]) async {
        for message in messages where !inFlight.contains(message.id) && !acknowledged.contains(message.id) {
            guard !closed else { return }
            guard inFlight.count < window else {
                backlog = true
                return
            }
            inFlight.insert(message.id)
            await write(message.json)
            ChannelMetrics.sent.increment()
        }
    }

    /// Reads the device's waiting messages from the database and writes them (on connect, when acks free
    /// the window, after the fan-in's listener reconnected).
    func refill() async {
        let room = window - inFlight.count
        guard room > 0, !closed else { return }
        backlog = false
        do {
            let waiting = try await ledger.pending(
                appId: key.appId, installationId: key.installationId,
                excluding: Array(inFlight.union(acknowledged)), limit: room)
            if waiting.count == room { backlog = true }
            await deliver(waiting)
        } catch {
            // The device keeps its connection; what it misses is read again on the next ack or reconnect.
            backlog = true
            logger.warning("cannot read waiting channel messages for \(key.installationId): \(error)")
        }
    }

    /// The device acknowledged `ids`: they leave the window (recorded by the caller); returns the ids that
    /// were this session's to acknowledge.
    func acknowledge(_ ids: [Int64]) -> [Int64] {
        let mine = ids.filter { inFlight.contains($0) }
        for id in mine {
            inFlight.remove(id)
            acknowledged.insert(id)
        }
        return mine
    }

    /// The acknowledgements are recorded: their messages are gone from the database; refills the window
    /// if the backlog waits.
    func recorded(_ ids: [Int64]) async {
        acknowledged.subtract(ids)
        if backlog, inFlight.count <= window / 2 { await refill() }
    }

    func send(_ json: JSON) async { await write(json) }

    func close() { closed = true }

    private func write(_ json: JSON) async {
        do {
            try await outbound.writeTextMessage(json.encoded())
        } catch {
            // The connection is going away; its messages stay stored for the next one.
            closed = true
        }
    }
}
