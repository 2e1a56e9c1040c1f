import CNGHTTP2Loop
import Synchronization

/// One submission to a loop: a single `send`, or all the requests of a `send(all:)`. The caller's task waits
/// once and is resumed once, when the last of its requests is answered, instead of a task and a resumption per
/// request (each a thread wake-up and two trips through the executor in a fan-out).
///
/// `results`, `remaining` and `continuation` are set before submission and afterwards touched only by the
/// loop's thread (through `complete`), or by a submitter that refuses the whole batch instead.
final class NGHTTP2Submission: @unchecked Sendable {
    typealias Results = [Result<NGHTTP2Response, NGHTTP2Error>]

    private struct State {
        var cancelRequested = false
        var loop: NGHTTP2Loop?
    }

    private let batch: OpaquePointer
    private var results: Results
    private var remaining: Int
    private var continuation: CheckedContinuation<Results, Never>?
    private let state = Mutex(State())

    /// Copies every request into one C batch (its strings in one arena).
    init(_ requests: some Collection<NGHTTP2Request>, defaultTimeout: Duration) {
        guard let batch = pl_h2_batch_create(requests.count) else { fatalError("out of memory") }
        self.batch = batch
        results = Array(repeating: .failure(.cancelled), count: requests.count)
        remaining = requests.count
        for (index, request) in requests.enumerated() { Self.describe(request, at: index, in: batch, defaultTimeout) }
    }

    deinit { pl_h2_batch_release(batch) }

    private static func describe(
        _ request: NGHTTP2Request, at index: Int, in batch: OpaquePointer, _ defaultTimeout: Duration
    ) {
        var method = request.method.rawValue
        var url = request.url
        let timeout = (request.timeout ?? defaultTimeout).nanoseconds
        method.withUTF8 { method in
            url.withUTF8 { url in
                _ = pl_h2_batch_set(batch, index, method.baseAddress, method.count, url.baseAddress, url.count, timeout)
            }
        }
        for field in request.headers {
            var name = field.name.canonicalName
            var value = field.value
            name.withUTF8 { name in
                value.withUTF8 { value in
                    pl_h2_batch_add_header(batch, index, name.baseAddress, name.count, value.baseAddress, value.count)
                }
            }
        }
        if let shared = request.sharedHeaders { pl_h2_batch_set_shared(batch, index, shared.block) }
        if let body = request.body {
            body.withUnsafeBufferPointer { pl_h2_batch_set_body(batch, index, $0.baseAddress, $0.count) }
        }
    }

    /// Hands the batch to `loop`, or refuses all of it (cancelled already, or the loop is shutting down), so
    /// that one thread completes the whole batch.
    func start(_ continuation: CheckedContinuation<Results, Never>, on loop: NGHTTP2Loop) {
        self.continuation = continuation
        let refusal: NGHTTP2Error? = state.withLock { state in
            if state.cancelRequested { return .cancelled }
            // The loop's reference to this object, given back by the completion of the last request.
            let token = Unmanaged.passRetained(self).toOpaque()
            guard pl_h2_loop_submit(loop.handle, batch, token) == 0 else {
                Unmanaged<NGHTTP2Submission>.fromOpaque(token).release()
                return .shutdown
            }
            state.loop = loop
            return nil
        }
        if let refusal {
            loop.countRefused(results.count)
            let refused = Results(repeating: .failure(refusal), count: results.count)
            results = []
            self.continuation = nil
            continuation.resume(returning: refused)
        }
    }

    /// Task cancellation: before submission the batch is then refused; after it the loop fails what is left.
    func cancel() {
        state.withLock { state in
            state.cancelRequested = true
            if let loop = state.loop { pl_h2_loop_cancel(loop.handle, batch) }
        }
    }

    /// One request's outcome, on the loop thread; true for the last one (the continuation is then resumed).
    func complete(_ completion: pl_h2_completion) -> Bool {
        results[completion.index] = Self.result(completion)
        remaining -= 1
        guard remaining == 0 else { return false }
        let results = self.results
        self.results = []
        let continuation = self.continuation
        self.continuation = nil
        continuation?.resume(returning: results)
        return true
    }

    private static func result(_ c: pl_h2_completion) -> Result<NGHTTP2Response, NGHTTP2Error> {
        if c.outcome == PL_H2_OK {
            return .success(
                NGHTTP2Response(
                    status: Int(c.status), headerLines: bytes(c.header_lines, c.header_lines_length),
                    body: bytes(c.body, c.body_length)))
        }
        let detail = c.detail.map { String(cString: $0) } ?? ""
        let started = c.response_started != 0
        switch c.outcome {
        case PL_H2_ERR_CONNECT: return .failure(.connect(detail))
        case PL_H2_ERR_TLS: return .failure(.tls(detail))
        case PL_H2_ERR_TIMEOUT: return .failure(.timeout(responseStarted: started))
        case PL_H2_ERR_RESET: return .failure(.reset(detail, responseStarted: started))
        case PL_H2_ERR_CANCELLED: return .failure(.cancelled)
        case PL_H2_ERR_SHUTDOWN: return .failure(.shutdown)
        case PL_H2_ERR_INVALID: return .failure(.invalidRequest(detail))
        default: return .failure(.protocolError(detail))
        }
    }

    private static func bytes(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }
}
