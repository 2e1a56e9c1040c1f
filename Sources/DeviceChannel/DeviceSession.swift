import Foundation
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
/// is read), and devices drop duplicates by id, which is the message's number in the device's own sequence.
/// The session is the same for every dialect; its `dialect` only shapes the frames.
actor DeviceSession {
    /// The close code a connection gets when a newer connection of the same device replaces it.
    static let replacedCloseCode: UInt16 = 4409

    let key: DeviceKey
    /// Names this connection in presence events, so a late disconnect never ends a newer session.
    let id: String
    let dialect: ChannelDialect
    private let socket: DeviceSocket
    private let ledger: ChannelLedger
    private let window: Int
    private let logger: Logger
    /// Written, not yet acknowledged (sequence numbers).
    private var inFlight: Set<Int64> = []
    /// Acknowledged by the device, not yet recorded: never written again meanwhile.
    private var acknowledged: Set<Int64> = []
    /// More messages may wait in the database than the window let through.
    private var backlog = false
    /// `welcome` is written: until then no message is, so that it is every connection's first frame.
    private var greeted = false
    private var closed = false
    /// `start` has finished; `close` waits for it, so a disconnect is never recorded before its connect.
    private var started = false
    private var startWaiters: [CheckedContinuation<Void, Never>] = []

    init(
        key: DeviceKey, dialect: ChannelDialect, socket: DeviceSocket, ledger: ChannelLedger, window: Int,
        logger: Logger
    ) {
        self.key = key
        self.id = RandomID.make(length: 16)
        self.dialect = dialect
        self.socket = socket
        self.ledger = ledger
        self.window = window
        self.logger = logger
    }

    /// Writes `frames` (the dialect's greeting: what the device must hear before any message), then the
    /// messages waiting for it. Messages handed to the session before this are not lost: they are stored, and
    /// the refill reads them.
    func start(greeting frames: [OutboundFrame]) async {
        for frame in frames { await write(frame) }
        greeted = true
        await refill()
        started = true
        for waiter in startWaiters { waiter.resume() }
        startWaiters = []
    }

    /// Writes what fits in the window of `messages` (all for this device), skipping those already written.
    /// `offline`: they were read from the store, not announced while the device was connected.
    func deliver(_ messages: [ChannelMessage], offline: Bool = false) async {
        guard greeted else {
            backlog = true
            return
        }
        for message in messages where !inFlight.contains(message.seq) && !acknowledged.contains(message.seq) {
            guard !closed else { return }
            guard inFlight.count < window else {
                backlog = true
                return
            }
            inFlight.insert(message.seq)
            await write(dialect.frame(for: message, offline: offline))
            ChannelMetrics.sent.increment()
        }
    }

    /// Reads the device's waiting messages from the database and writes them (on connect, when acks free
    /// the window, after the fan-in's listener reconnected).
    func refill() async {
        let room = window - inFlight.count
        guard room > 0, greeted, !closed else { return }
        backlog = false
        do {
            let waiting = try await ledger.pending(
                appId: key.appId, installationId: key.installationId,
                excluding: Array(inFlight.union(acknowledged)), limit: room)
            if waiting.count == room { backlog = true }
            await deliver(waiting, offline: true)
        } catch {
            // The device keeps its connection; what it misses is read again on the next ack or reconnect.
            backlog = true
            logger.warning("cannot read waiting channel messages for \(key.installationId): \(error)")
        }
    }

    /// The device acknowledged `seqs`: they leave the window (recorded by the caller); returns the ones that
    /// were this session's to acknowledge.
    func acknowledge(_ seqs: [Int64]) -> [Int64] {
        let mine = seqs.filter { inFlight.contains($0) }
        for seq in mine {
            inFlight.remove(seq)
            acknowledged.insert(seq)
        }
        return mine
    }

    /// The acknowledgements are recorded: their messages are gone from the database; refills the window
    /// if the backlog waits.
    func recorded(_ seqs: [Int64]) async {
        acknowledged.subtract(seqs)
        if backlog, inFlight.count <= window / 2 { await refill() }
    }

    /// A newer connection of the device took over: this one writes nothing more and is closed with
    /// `replacedCloseCode`, so the client knows not to reconnect over the new one.
    func replaced() {
        guard !closed else { return }
        closed = true
        socket.close(code: Self.replacedCloseCode, reason: "replaced by a newer connection")
    }

    /// The connection is gone; returns once the session's start has finished.
    func close() async {
        closed = true
        if !started { await withCheckedContinuation { startWaiters.append($0) } }
    }

    private func write(_ frame: OutboundFrame) async {
        do {
            try await socket.send(frame)
        } catch {
            // The connection is going away; its messages stay stored for the next one.
            closed = true
        }
    }
}
