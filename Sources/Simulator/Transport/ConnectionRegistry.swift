import NIOCore
import Synchronization

/// The open client connections, so shutdown can drain them instead of cutting in-flight answers off.
final class ConnectionRegistry: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        self.channels.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { _ in
            _ = self.channels.withLock { $0.removeValue(forKey: key) }
        }
    }

    /// Asks every connection to finish what it has in flight, forces the stragglers closed after `grace`, and
    /// returns once all are closed.
    func drain(grace: TimeAmount) async {
        let open = self.channels.withLock { Array($0.values) }
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(SimulatorDrainEvent())
            channel.eventLoop.scheduleTask(in: grace) { channel.close(promise: nil) }
        }
        for channel in open {
            try? await channel.closeFuture.get()
        }
    }
}
