import Logging
import Metrics
import PushCore
import ServiceLifecycle
import Synchronization

/// Why a connection was refused or closed by the server, as counted and logged.
enum ConnectionEnd: String, Sendable, CaseIterable {
    /// Over `--max-connections`.
    case refusedHTTP = "refused_max_connections"
    /// Over `--max-channel-connections`.
    case refusedChannel = "refused_max_channel_connections"
    /// The request (or TLS handshake) did not arrive whole within `--request-timeout-seconds`.
    case requestTimeout = "request_timeout"
    /// Nothing was asked for `--idle-timeout-seconds`.
    case idleTimeout = "idle_timeout"
    /// A request line or header the HTTP parser refused (answered 400).
    case malformed
    /// A request head over the parser's limit (answered 431).
    case headTooLarge = "head_too_large"

    var counter: Counter {
        switch self {
        case .refusedHTTP, .refusedChannel:
            Counter(label: "pushledger_http_connections_refused_total", dimensions: [("reason", rawValue)])
        default:
            Counter(label: "pushledger_http_connections_closed_total", dimensions: [("reason", rawValue)])
        }
    }
}

/// Counts every refusal and timeout at once (metrics), and logs them at most once a second with their counts:
/// a flood of slow or malformed connections must be visible without writing a line per connection.
final class ConnectionReport: Sendable {
    private let pending = Mutex<[ConnectionEnd: Int]>([:])
    let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func count(_ end: ConnectionEnd) {
        end.counter.increment()
        pending.withLock { $0[end, default: 0] += 1 }
    }

    /// Logs what was counted since the last call, if anything; the flushing service calls it every second.
    func flush() {
        let counts = pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard !counts.isEmpty else { return }
        var metadata: Logger.Metadata = [:]
        for (end, n) in counts { metadata[end.rawValue] = .stringConvertible(n) }
        let total = counts.values.reduce(0, +)
        logger.warning("\(total) connection(s) refused or closed by the server in the last second", metadata: metadata)
    }
}

/// Flushes the connection report once a second while `serve` runs.
struct ConnectionReportService: Service {
    let report: ConnectionReport
    let clock: ServiceClock

    func run() async throws {
        await Periodically.run(after: .seconds(1), every: .seconds(1), on: clock) { report.flush() }
        report.flush()
    }
}
