import Ledger

/// How much of one batch a sender has out (SPEC-level promise in docs/fanout.md: duplicates after a crash are
/// bounded by the window). Pure bookkeeping: requests in flight, answers waiting to be recorded and the part
/// being recorded together never exceed `size`.
struct SendWindow {
    private let pending: [Int]
    let size: Int
    let chunkSize: Int
    private var next = 0
    private var inFlight = 0
    private var answers: [(index: Int, outcome: TargetOutcome)] = []
    private var recording = 0

    /// - Parameter pending: the batch's target indices to send, in order.
    init(pending: [Int], size: Int, chunkSize: Int) {
        self.pending = pending
        self.size = max(1, size)
        self.chunkSize = max(1, min(chunkSize, self.size))
    }

    /// Requests and answers this sender could lose in a crash right now.
    var unrecorded: Int { inFlight + answers.count + recording }

    /// The next chunk of target indices to send, when one fits in the window.
    mutating func nextChunk() -> [Int]? {
        guard next < pending.count else { return nil }
        let count = min(chunkSize, pending.count - next)
        guard unrecorded + count <= size else { return nil }
        defer {
            next += count
            inFlight += count
        }
        return Array(pending[next..<(next + count)])
    }

    mutating func answered(_ outcomes: [(index: Int, outcome: TargetOutcome)]) {
        inFlight -= outcomes.count
        answers += outcomes
    }

    /// The answers to record now, if it is time: half a window waits, or nothing else can move (dispatching
    /// stopped or every target dispatched, and nothing in flight). Once dispatching stopped for good, the
    /// targets never dispatched go with the last part as `notSent`. One part is recorded at a time.
    mutating func partToRecord(dispatchStopped: Bool) -> [(index: Int, outcome: TargetOutcome)]? {
        guard recording == 0 else { return nil }
        let exhausted = next == pending.count || dispatchStopped
        if exhausted, inFlight == 0, next < pending.count {
            answers += pending[next...].map { (index: $0, outcome: .notSent) }
            next = pending.count
        }
        let stuck = inFlight == 0 && (exhausted || unrecorded + min(chunkSize, pending.count - next) > size)
        guard !answers.isEmpty, answers.count * 2 >= size || stuck else { return nil }
        defer {
            recording = answers.count
            answers = []
        }
        return answers
    }

    mutating func recorded() { recording = 0 }
}
