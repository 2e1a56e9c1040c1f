/// One `send` call on its way through the driver.
///
/// `continuation`, `enqueued` and `cancelRequested` are touched only under the driver's lock until the job is
/// enqueued; after that, everything but `cancelRequested` belongs to the driver thread, which alone resumes.
final class CurlJob: @unchecked Sendable {
    let request: CurlRequest
    let deadline: ContinuousClock.Instant

    var continuation: CheckedContinuation<Result<CurlResponse, CurlError>, Never>?
    var enqueued = false
    var cancelRequested = false

    var transfer: CurlTransfer?
    var retries = 0
    var finished = false

    init(request: CurlRequest, defaultTimeout: Duration) {
        self.request = request
        self.deadline = ContinuousClock.now.advanced(by: request.timeout ?? defaultTimeout)
    }

    /// Milliseconds left before the deadline, at least 1 so libcurl still applies a timeout.
    func remainingMilliseconds(now: ContinuousClock.Instant) -> Int? {
        let left = now.duration(to: deadline)
        guard left > .zero else { return nil }
        let (seconds, attoseconds) = left.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
