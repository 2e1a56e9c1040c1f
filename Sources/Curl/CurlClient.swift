import Logging
import Synchronization

/// An HTTP/2-over-TLS client on libcurl's multi interface: many concurrent requests multiplexed over a few
/// connections, driven by dedicated threads.
///
/// A multi handle is single-threaded, and during a large fan-out its thread is the busiest in the process
/// (libcurl, TLS and nghttp2 are most of the server's work). So the client can run
/// `configuration.driverThreads` drivers, each owning a multi handle and its share of the connections, and
/// deal requests to them in turn (one per core by default: see `CurlConfiguration.defaultDriverThreads`).
///
/// Create one per set of TLS credentials and share it; call `shutdown()` before dropping it to let in-flight
/// requests finish (dropping it shuts down too, without waiting).
public final class CurlClient: Sendable {
    private let drivers: [CurlDriver]
    private let nextDriver = Atomic<Int>(0)
    private let defaultTimeout: Duration

    public init(configuration: CurlConfiguration = CurlConfiguration(), logger: Logger? = nil) throws(CurlError) {
        let logger = logger ?? Logger(label: "pushledger.curl")
        let count = max(1, configuration.driverThreads)
        var drivers: [CurlDriver] = []
        for _ in 0..<count {
            drivers.append(try CurlDriver(configuration: configuration.share(of: count), logger: logger))
        }
        self.drivers = drivers
        defaultTimeout = configuration.defaultTimeout
        for driver in drivers { driver.start() }
    }

    deinit {
        for driver in drivers { driver.beginShutdown() }
    }

    /// Runs one request. Any HTTP status is a response; transport failures, timeouts and cancellation throw.
    /// Requests that failed on their connection before any response byte arrived are re-run transparently.
    public func send(_ request: CurlRequest) async throws(CurlError) -> CurlResponse {
        let job = CurlJob(request: request, defaultTimeout: defaultTimeout)
        let driver = drivers[nextDriver.add(1, ordering: .relaxed).oldValue % drivers.count]
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                driver.submit(job, continuation: continuation)
            }
        } onCancel: {
            driver.cancel(job)
        }
        return try result.get()
    }

    /// Runs `requests` as one submission and returns their results in order, once every one is answered:
    /// for the many first attempts of a fan-out, where a task per request would cost more than libcurl.
    /// Each result is what `send` would have returned or thrown for that request.
    public func send(all requests: [CurlRequest]) async -> [Result<CurlResponse, CurlError>] {
        guard !requests.isEmpty else { return [] }
        let batch = CurlBatch(requests, defaultTimeout: defaultTimeout)
        let driver = drivers[nextDriver.add(1, ordering: .relaxed).oldValue % drivers.count]
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                batch.wait(continuation)
                driver.submit(batch)
            }
        } onCancel: {
            for job in batch.jobs { driver.cancel(job) }
        }
    }

    /// Refuses new requests, lets the ones already accepted finish (each bounded by its timeout), then
    /// closes every connection. Safe to call more than once.
    public func shutdown() async {
        for driver in drivers { driver.beginShutdown() }
        for driver in drivers { await driver.awaitTermination() }
    }

    /// The sum over every driver.
    public var statistics: CurlStatistics {
        drivers.map { $0.counters.snapshot() }.reduce(CurlStatistics.zero, +)
    }
}
