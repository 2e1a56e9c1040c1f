import Logging
import Synchronization

/// An HTTP/2-over-TLS client on libnghttp2 and OpenSSL, driven by event loops written in C
/// (`CNGHTTP2Loop`): many concurrent requests multiplexed over a few connections per host. Its API mirrors
/// `CurlClient`'s.
///
/// Each of `configuration.loopThreads` loops owns its connections and its share of `maxHostConnections` and
/// `maxInFlight`; requests (or whole `send(all:)` submissions) are dealt to the loops in turn.
///
/// Create one per set of TLS credentials and share it; call `shutdown()` before dropping it to let in-flight
/// requests finish (dropping it shuts down too, without waiting).
public final class NGHTTP2Client: Sendable {
    private let loops: [NGHTTP2Loop]
    private let nextLoop = Atomic<Int>(0)
    private let defaultTimeout: Duration
    private let logger: Logger

    /// Throws `.tls` when the TLS set-up fails (an unreadable CA file or client certificate, a key that does
    /// not match), or when a loop cannot start.
    public init(
        configuration: NGHTTP2Configuration = NGHTTP2Configuration(), logger: Logger? = nil
    )
        throws(NGHTTP2Error)
    {
        let count = max(1, configuration.loopThreads)
        var loops: [NGHTTP2Loop] = []
        for _ in 0..<count { loops.append(try NGHTTP2Loop(configuration: configuration.share(of: count))) }
        self.loops = loops
        defaultTimeout = configuration.defaultTimeout
        self.logger = logger ?? Logger(label: "pushledger.nghttp2")
    }

    deinit { beginShutdown() }

    /// Runs one request. Any HTTP status is a response; transport failures, timeouts and cancellation throw.
    /// Requests that failed on their connection before any response byte arrived, and streams the server
    /// refused unprocessed (REFUSED_STREAM, a GOAWAY), are re-run transparently.
    public func send(_ request: NGHTTP2Request) async throws(NGHTTP2Error) -> NGHTTP2Response {
        let results = await run(NGHTTP2Submission(CollectionOfOne(request), defaultTimeout: defaultTimeout))
        return try results[0].get()
    }

    /// Runs `requests` as one submission and returns their results in order, once every one is answered: for
    /// the many first attempts of a fan-out. Each result is what `send` would have returned or thrown for
    /// that request; cancelling the task cancels those not finished.
    public func send(all requests: [NGHTTP2Request]) async -> [Result<NGHTTP2Response, NGHTTP2Error>] {
        guard !requests.isEmpty else { return [] }
        return await run(NGHTTP2Submission(requests, defaultTimeout: defaultTimeout))
    }

    private func run(_ submission: NGHTTP2Submission) async -> NGHTTP2Submission.Results {
        let loop = loops[nextLoop.add(1, ordering: .relaxed).oldValue % loops.count]
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in submission.start(continuation, on: loop) }
        } onCancel: {
            submission.cancel()
        }
    }

    /// Refuses new requests, lets the ones already accepted finish (each bounded by its timeout), then closes
    /// every connection with GOAWAY(NO_ERROR) and ends the loop threads. Safe to call more than once.
    public func shutdown() async {
        beginShutdown()
        for loop in loops { await loop.awaitTermination() }
        logger.debug("nghttp2 client shut down", metadata: ["loops": "\(loops.count)"])
    }

    /// The first half of `shutdown()`: from here on requests are refused.
    func beginShutdown() {
        for loop in loops { loop.beginShutdown() }
    }

    /// The loop threads' Linux thread ids (0 for one not started yet), for tests that watch them end.
    var loopThreadIDs: [Int] { loops.map(\.threadID) }

    /// The sum over every loop.
    public var statistics: NGHTTP2Statistics {
        loops.map(\.statistics).reduce(NGHTTP2Statistics.zero, +)
    }
}
