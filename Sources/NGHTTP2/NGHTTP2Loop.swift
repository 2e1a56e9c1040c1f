import CNGHTTP2Loop
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The Swift owner of one C loop (`pl_h2_loop`) and its thread. The thread alone owns the loop's sockets,
/// SSL objects and nghttp2 sessions; this object only submits, cancels and waits for the end.
final class NGHTTP2Loop: @unchecked Sendable {
    /// The loops' name in /proc/<pid>/task/*/comm, by which benchmarks tell their CPU time from the rest.
    static let threadName = "h2-driver"

    let handle: OpaquePointer
    private let events: NGHTTP2LoopEvents
    /// Requests refused before reaching the loop (cancelled already, or shutting down).
    private let refused = Atomic<Int>(0)

    init(configuration: NGHTTP2Configuration) throws(NGHTTP2Error) {
        let events = NGHTTP2LoopEvents()
        let tls = configuration.tls
        let strings = [
            tls.caFile, tls.clientCertificateFile, tls.clientKeyFile, tls.clientKeyPassword, configuration.userAgent,
        ]
        .map { $0.map { strdup($0) } ?? nil }
        defer { for string in strings { free(string) } }
        var config = pl_h2_config()
        config.ca_file = UnsafePointer(strings[0])
        config.client_certificate_file = UnsafePointer(strings[1])
        config.client_key_file = UnsafePointer(strings[2])
        config.client_key_password = UnsafePointer(strings[3])
        config.user_agent = UnsafePointer(strings[4])
        config.verify_peer = tls.verifyPeer ? 1 : 0
        config.verify_host = tls.verifyHost ? 1 : 0
        config.max_host_connections = Int32(clamping: configuration.maxHostConnections)
        config.max_concurrent_streams = Int32(clamping: configuration.maxConcurrentStreams)
        config.max_in_flight = Int32(clamping: configuration.maxInFlight)
        config.connection_retries = Int32(clamping: configuration.connectionRetries)
        config.connect_timeout_ns = configuration.connectTimeout.nanoseconds
        config.ping_interval_ns = max(0, configuration.pingInterval.nanoseconds)
        config.ping_timeout_ns = configuration.pingTimeout.nanoseconds
        config.drain_timeout_ns = configuration.drainTimeout.nanoseconds
        config.on_complete = NGHTTP2LoopEvents.onComplete
        config.on_terminated = NGHTTP2LoopEvents.onTerminated
        // The loop's reference to `events`, given back by its last call, on_terminated.
        config.context = Unmanaged.passRetained(events).toOpaque()
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = pl_h2_loop_start(&config, &error, error.count) else {
            Unmanaged.passUnretained(events).release()
            throw .tls(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.handle = handle
        self.events = events
    }

    deinit { pl_h2_loop_release(handle) }

    func beginShutdown() { pl_h2_loop_shutdown(handle) }

    /// Once every accepted request has finished and the connections are closed; then the thread is joined (it
    /// is past its last callback, so the join returns at once).
    func awaitTermination() async {
        await events.awaitTermination()
        pl_h2_loop_join(handle)
    }

    /// The loop thread's Linux thread id (0 until it has started).
    var threadID: Int { pl_h2_loop_thread_id(handle) }

    func countRefused(_ count: Int) { refused.add(count, ordering: .relaxed) }

    var statistics: NGHTTP2Statistics {
        var raw = pl_h2_statistics()
        pl_h2_loop_statistics(handle, &raw)
        var statistics = NGHTTP2Statistics(raw)
        let refused = refused.load(ordering: .relaxed)
        statistics.requests += refused
        statistics.failures += refused
        return statistics
    }
}
