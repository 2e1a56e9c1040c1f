import Logging

/// An HTTP/2-over-TLS client on libcurl's multi interface: many concurrent requests multiplexed over a few
/// connections, driven by one dedicated thread.
///
/// Create one per set of TLS credentials and share it; call `shutdown()` before dropping it to let in-flight
/// requests finish (dropping it shuts down too, without waiting).
public final class CurlClient: Sendable {
    private let driver: CurlDriver
    private let defaultTimeout: Duration

    public init(configuration: CurlConfiguration = CurlConfiguration(), logger: Logger? = nil) throws(CurlError) {
        driver = try CurlDriver(
            configuration: configuration,
            logger: logger ?? Logger(label: "pushledger.curl")
        )
        defaultTimeout = configuration.defaultTimeout
        driver.start()
    }

    deinit {
        driver.beginShutdown()
    }

    /// Runs one request. Any HTTP status is a response; transport failures, timeouts and cancellation throw.
    /// Requests that failed on their connection before any response byte arrived are re-run transparently.
    public func send(_ request: HTTPRequest) async throws(CurlError) -> HTTPResponse {
        let job = CurlJob(request: request, defaultTimeout: defaultTimeout)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                driver.submit(job, continuation: continuation)
            }
        } onCancel: {
            driver.cancel(job)
        }
        return try result.get()
    }

    /// Refuses new requests, lets the ones already accepted finish (each bounded by its timeout), then
    /// closes every connection. Safe to call more than once.
    public func shutdown() async {
        driver.beginShutdown()
        await driver.awaitTermination()
    }

    public var statistics: CurlStatistics { driver.counters.snapshot() }
}
