import Foundation
import Ledger
import Logging
import Postgres
import PushCore
import ServiceLifecycle

/// Listens for batches recorded by any process (NOTIFY from the recording transaction, so the messages are
/// committed when it arrives) and hands their messages to the devices connected here. After the listening
/// connection is (re)established, every connected device's waiting messages are read again: announcements
/// made while it was down are not replayed by PostgreSQL.
struct ChannelFanIn: Service, CustomStringConvertible {
    let url: String
    let hub: ChannelHub
    let ledger: ChannelLedger
    let logger: Logger

    /// What service-lifecycle logs for it: never the database URL, which may hold a password.
    var description: String { "ChannelFanIn" }

    func run() async throws {
        let listener = PGListener(url: url, channels: [ChannelLedger.notifyChannel])
        await withGracefulShutdownHandler {
            for await note in listener.notifications().cancelOnGracefulShutdown() {
                guard hub.connectionCount > 0 else { continue }
                if note.channel.isEmpty {
                    await hub.refillAll()
                    continue
                }
                let parts = note.payload.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 3, let batchNo = Int(parts[2]) else { continue }
                do {
                    await hub.deliver(try await ledger.batch(appId: parts[0], pushId: parts[1], batchNo: batchNo))
                } catch {
                    // The devices still get them: from their next refill or reconnect.
                    logger.warning("cannot read channel batch \(batchNo) of push \(parts[1]): \(error)")
                }
            }
        } onGracefulShutdown: {
            listener.stop()
        }
    }
}

/// Ends channel messages past their expiration (as `PushChannelExpired` events) and keeps the presence of
/// the devices connected here fresh (`last_seen`), each on its own beat.
struct ChannelMaintenance: Service {
    let hub: ChannelHub
    let ledger: ChannelLedger
    let logger: Logger

    func run() async throws {
        let configuration = hub.configuration
        // Refreshed twice per ping interval, so a live device never looks stale between two touches.
        let touchEvery = max(.seconds(1), configuration.pingInterval / 2)
        let clock = ledger.clock
        var lastTouch = clock.now()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let expired = try await ledger.expire()
                if expired > 0 {
                    ChannelMetrics.expired.increment(by: expired)
                    logger.info("channel: \(expired) messages expired before their devices took them")
                }
                if clock.elapsed(since: lastTouch) >= touchEvery {
                    lastTouch = clock.now()
                    try await ledger.touch(sessions: await hub.sessionIds())
                }
            } catch {
                logger.warning("channel maintenance failed (retrying): \(error)")
            }
            try? await cancelWhenGracefulShutdown {
                try await clock.sleep(for: min(configuration.expiryInterval, touchEvery))
            }
        }
    }
}
