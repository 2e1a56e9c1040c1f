import Curl
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOSSL
import PushCore
import Synchronization

/// One or many device connections of `pushledger device`, and what they print.
struct DeviceRun: Sendable {
    let channelURL: String
    let acknowledge: Bool
    let limit: Int?
    let timeout: Duration?
    let load: Bool
    /// CA bundle for `wss://`; nil trusts the system's.
    let caFile: String?

    /// `http(s)://host[:port]` → `ws(s)://host[:port]/channel?appId=…`.
    static func channelURL(base: String, appId: String) -> String {
        var url = base.hasSuffix("/") ? String(base.dropLast()) : base
        if url.hasPrefix("https://") {
            url = "wss://" + url.dropFirst(8)
        } else if url.hasPrefix("http://") {
            url = "ws://" + url.dropFirst(7)
        }
        return url + "/channel?appId=" + escaped(appId)
    }

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~"))) ?? text
    }

    /// One device: every frame printed as it arrives.
    func single(installationId: String, token: String) async throws {
        let stats = DeviceStats()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await connect(installationId: installationId, token: token, stats: stats) { text in
                    Self.printLine(text)
                }
                // The server closed the connection: report it as a failure of the run.
                throw DeviceFailure(message: "the server closed the connection")
            }
            try await watch(stats: stats, group: &group)
        }
    }

    /// Many devices: one line when all are connected, one summary line at the end.
    func load(devices: [(installationId: String, token: String)]) async throws {
        let stats = DeviceStats()
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for device in devices {
                // Bounded connecting, so the listen backlog never overflows into SYN retries.
                while stats.snapshot().connecting >= 256 { try await Task.sleep(for: .milliseconds(2)) }
                stats.update { $0.connecting += 1 }
                group.addTask {
                    let welcomed = Atomic(false)
                    do {
                        try await connect(installationId: device.installationId, token: device.token, stats: stats) {
                            _ in welcomed.store(true, ordering: .relaxed)
                        }
                    } catch {
                        stats.update {
                            $0.failed += 1
                            if !welcomed.load(ordering: .relaxed) { $0.connecting -= 1 }
                        }
                    }
                }
            }
            while stats.snapshot().connected + stats.snapshot().failed < devices.count {
                try await Task.sleep(for: .milliseconds(5))
            }
            let snapshot = stats.snapshot()
            Self.printLine(
                JSON.object([
                    "connected": .int(Int64(snapshot.connected)), "failed": .int(Int64(snapshot.failed)),
                    "connectSeconds": .double((ContinuousClock.now - started).timeInterval),
                ]).encoded())
            try await watch(stats: stats, group: &group)
        }
    }

    /// Waits for the message limit or the timeout, then prints the summary (load mode) and ends the process:
    /// open WebSocket connections do not end on task cancellation alone.
    private func watch(stats: DeviceStats, group: inout ThrowingTaskGroup<Void, any Error>) async throws {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        group.addTask {
            while true {
                // With acknowledgements on, the limit counts acknowledged messages: a message is counted as
                // received before its ack is written, and ending then lost the last acks (their messages
                // stayed pending on the server).
                if let limit, stats.snapshot().done(acknowledging: acknowledge) >= limit {
                    // Written to the socket; give the server a moment to read them before the sockets close.
                    if acknowledge { try await Task.sleep(for: .milliseconds(200)) }
                    return
                }
                if let deadline, ContinuousClock.now >= deadline { return }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        try await group.next()
        let snapshot = stats.snapshot()
        if load { Self.printLine(snapshot.summary.encoded()) }
        let complete = limit.map { snapshot.received >= $0 } ?? true
        FileHandle.standardOutput.synchronizeFile()
        Foundation.exit(complete ? 0 : 1)
    }

    private func connect(
        installationId: String, token: String, stats: DeviceStats, onFrame: @escaping @Sendable (String) -> Void
    ) async throws {
        var configuration = WebSocketClientConfiguration(maxFrameSize: 64 * 1024, autoPing: .disabled)
        configuration.additionalHeaders[.authorization] = "Bearer \(token)"
        let url = channelURL + "&installationId=" + Self.escaped(installationId)
        let acknowledge = self.acknowledge
        var tls: TLSConfiguration?
        if let caFile {
            tls = TLSConfiguration.makeClientConfiguration()
            tls?.trustRoots = .file(caFile)
        }
        let close = try await WebSocketClient.connect(
            url: url, configuration: configuration, tlsConfiguration: tls, logger: Logger(label: "pushledger.device")
        ) { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: 64 * 1024) {
                guard case .text(let text) = message, let frame = try? JSON.parse(text) else { continue }
                onFrame(text)
                switch frame["type"]?.stringValue {
                case "welcome":
                    stats.update {
                        $0.connected += 1
                        $0.connecting -= 1
                    }
                case "message":
                    let now = Date().timeIntervalSince1970 * 1000
                    let sentAt = frame["data"]?["sentAt"]?.doubleValue
                    stats.update { $0.received(latencyMs: sentAt.map { now - $0 }) }
                    if acknowledge, let id = frame["id"] {
                        try await outbound.writeTextMessage(JSON.object(["type": "ack", "id": id]).encoded())
                        stats.update { $0.acknowledged += 1 }
                    }
                case "error":
                    // A refused connection: the reason, then a close frame.
                    throw DeviceFailure(message: text)
                default: break
                }
            }
        }
        // The refusal frame can be lost when it arrives with the handshake's answer; the close code still tells.
        if case .unknown(let code)? = close?.closeCode, code >= 4000 {
            throw DeviceFailure(message: "refused by the server (close code \(code)): \(close?.reason ?? "")")
        }
    }

    static func printLine(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

/// What the connections of one run have seen, shared between them.
final class DeviceStats: Sendable {
    struct Snapshot {
        var connecting = 0
        var connected = 0
        var failed = 0
        var received = 0
        var acknowledged = 0
        var firstAt: ContinuousClock.Instant?
        var lastAt: ContinuousClock.Instant?
        var latenciesMs: [Double] = []

        /// Messages done with: acknowledged when the run acknowledges, else received.
        func done(acknowledging: Bool) -> Int { acknowledging ? acknowledged : received }

        mutating func received(latencyMs: Double?) {
            received += 1
            let now = ContinuousClock.now
            if firstAt == nil { firstAt = now }
            lastAt = now
            if let latencyMs { latenciesMs.append(latencyMs) }
        }

        var summary: JSON {
            let sorted = latenciesMs.sorted()
            func percentile(_ p: Double) -> JSON {
                sorted.isEmpty ? .null : .double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))])
            }
            var seconds = 0.0
            if let firstAt, let lastAt { seconds = (lastAt - firstAt).timeInterval }
            return [
                "connected": .int(Int64(connected)), "failed": .int(Int64(failed)),
                "received": .int(Int64(received)), "receiveSeconds": .double(seconds),
                "latencyMs": [
                    "p50": percentile(0.5), "p99": percentile(0.99), "max": sorted.last.map(JSON.double) ?? .null,
                ],
            ]
        }
    }

    private let state = Mutex(Snapshot())

    func update(_ change: (inout Snapshot) -> Void) { state.withLock { change(&$0) } }
    func snapshot() -> Snapshot { state.withLock { $0 } }
}
