import CLibPQ
import CThreadName
import Foundation
import Logging

/// A NOTIFY received on a LISTEN channel.
public struct PGNotification: Sendable {
    public let channel: String
    public let payload: String
}

/// A dedicated connection that LISTENs on channels and yields notifications. It waits on the socket with
/// `poll` on its own thread, so it never blocks the cooperative pool; it reconnects after failures.
public final class PGListener: @unchecked Sendable {
    private let url: String
    private let channels: [String]
    private let logger: Logger
    private let lock = NSLock()
    private var stopped = false

    public init(url: String, channels: [String], logger: Logger = Logger(label: "pushledger.pg.listen")) {
        self.url = url
        self.channels = channels
        self.logger = logger
    }

    /// Notifications until `stop()` or the consuming task is cancelled. A `reconnected` pseudo-notification
    /// (channel "") is yielded after every (re)connection so consumers re-read what they may have missed.
    public func notifications() -> AsyncStream<PGNotification> {
        AsyncStream { continuation in
            let thread = Thread { [self] in
                // By the thread itself (Foundation's `Thread.name` does not reliably reach the system thread on
                // Linux: see `CurlDriver.start`), within the 15 bytes such a name may have.
                _ = pl_name_this_thread("pg-listen")
                self.loop(continuation)
            }
            continuation.onTermination = { [weak self] _ in self?.stop() }
            thread.start()
        }
    }

    public func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func loop(_ continuation: AsyncStream<PGNotification>.Continuation) {
        while !isStopped {
            guard let conn = PQconnectdb(url), PQstatus(conn) == CONNECTION_OK else {
                logger.warning("listener cannot connect; retrying")
                Thread.sleep(forTimeInterval: 0.5)
                continue
            }
            defer { PQfinish(conn) }
            var ok = true
            for channel in channels {
                // Channel names are ours (constants), quoted as identifiers.
                let r = PQexec(conn, "LISTEN \"\(channel.replacingOccurrences(of: "\"", with: "\"\""))\"")
                if PQresultStatus(r) != PGRES_COMMAND_OK { ok = false }
                PQclear(r)
            }
            guard ok else { continue }
            continuation.yield(PGNotification(channel: "", payload: "connected"))
            let socket = PQsocket(conn)
            while !isStopped {
                var fds = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                let n = poll(&fds, 1, 200)
                if n < 0 && errno != EINTR { break }
                if PQconsumeInput(conn) != 1 { break }
                while let note = PQnotifies(conn) {
                    let channel = String(cString: note.pointee.relname)
                    let payload = String(cString: note.pointee.extra)
                    PQfreemem(note)
                    continuation.yield(PGNotification(channel: channel, payload: payload))
                }
                if PQstatus(conn) != CONNECTION_OK { break }
            }
        }
        continuation.finish()
    }
}
