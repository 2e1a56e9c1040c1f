/// Many requests submitted as one: the caller's task waits once and is resumed once, when the last of them
/// is answered, instead of a task and a resumption per request. In a fan-out each of those cost a thread
/// wake-up and two trips through the executor per device.
///
/// All of a batch's jobs go to one driver and are completed by its thread (or all of them refused by the
/// submitter), so the results need no lock.
final class CurlBatch: @unchecked Sendable {
    let jobs: [CurlJob]
    private var results: [Result<CurlResponse, CurlError>]
    private var remaining: Int
    private var continuation: CheckedContinuation<[Result<CurlResponse, CurlError>], Never>?

    init(_ requests: [CurlRequest], defaultTimeout: Duration) {
        jobs = requests.map { CurlJob(request: $0, defaultTimeout: defaultTimeout) }
        results = Array(repeating: .failure(.cancelled), count: requests.count)
        remaining = requests.count
        for (index, job) in jobs.enumerated() { job.completion = .batch(self, index: index) }
    }

    /// Set before the jobs are submitted; resumed by the last `complete`.
    func wait(_ continuation: CheckedContinuation<[Result<CurlResponse, CurlError>], Never>) {
        self.continuation = continuation
        if remaining == 0 { finish() }
    }

    func complete(_ index: Int, _ result: Result<CurlResponse, CurlError>) {
        results[index] = result
        remaining -= 1
        if remaining == 0 { finish() }
    }

    private func finish() {
        let continuation = self.continuation
        self.continuation = nil
        let results = self.results
        self.results = []
        continuation?.resume(returning: results)
    }
}
