/// One request on its way through the driver.
///
/// `completion`, `enqueued` and `cancelRequested` are touched only under the driver's lock until the job is
/// enqueued; after that, everything but `cancelRequested` belongs to the driver thread, which alone completes.
final class CurlJob: @unchecked Sendable {
    /// Who hears the result: a single `send`'s task, or one slot of a `CurlBatch`.
    enum Completion {
        case task(CheckedContinuation<Result<CurlResponse, CurlError>, Never>)
        case batch(CurlBatch, index: Int)
    }

    let request: CurlRequest
    let deadline: ContinuousClock.Instant

    var completion: Completion?
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

    /// Hands the result over; called once, by the driver thread (or by a refusing submitter).
    func complete(_ result: Result<CurlResponse, CurlError>) {
        let completion = self.completion
        self.completion = nil
        switch completion {
        case .task(let continuation): continuation.resume(returning: result)
        case .batch(let batch, let index): batch.complete(index, result)
        case nil: break
        }
    }
}
