import CNGHTTP2Loop
import Synchronization

/// What a loop thread calls back into: finished requests, a round's worth at a time, and its termination.
final class NGHTTP2LoopEvents: Sendable {
    private struct State {
        var terminated = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    static let onComplete: pl_h2_complete_fn = { _, completions, count in
        guard let completions else { return }
        for i in 0..<count {
            let completion = completions[i]
            guard let token = completion.token else { continue }
            let submission = Unmanaged<NGHTTP2Submission>.fromOpaque(token)
            if submission.takeUnretainedValue().complete(completion) { submission.release() }
        }
    }

    static let onTerminated: pl_h2_terminated_fn = { context in
        guard let context else { return }
        Unmanaged<NGHTTP2LoopEvents>.fromOpaque(context).takeRetainedValue().terminated()
    }

    private func terminated() {
        let waiters = state.withLock { state in
            state.terminated = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func awaitTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.terminated { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
