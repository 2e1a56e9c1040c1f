import Ledger

/// How much of one batch a sender has out (docs/fanout.md: duplicates after a crash are bounded by the
/// window). Pure bookkeeping: requests in flight, answers waiting to be recorded and the part being recorded
/// together never exceed `size`.
struct SendWindow {
    /// The batch's target indices to send, chunk by chunk, in order.
    private let chunks: [[Int]]
    let size: Int
    private var next = 0
    private var inFlight = 0
    private var answers: [(index: Int, outcome: TargetOutcome)] = []
    private var recording = 0

    /// - Parameter chunks: none larger than `size` (a larger one is split).
    init(chunks: [[Int]], size: Int) {
        let size = max(1, size)
        self.size = size
        self.chunks = chunks.flatMap { chunk in
            stride(from: 0, to: chunk.count, by: size).map { Array(chunk[$0..<min($0 + size, chunk.count)]) }
        }
    }

    /// `pending` in chunks of `chunkSize`.
    init(pending: [Int], size: Int, chunkSize: Int) {
        let step = max(1, min(chunkSize, max(1, size)))
        self.init(
            chunks: stride(from: 0, to: pending.count, by: step).map {
                Array(pending[$0..<min($0 + step, pending.count)])
            },
            size: size)
    }

    /// Requests and answers this sender could lose in a crash right now.
    var unrecorded: Int { inFlight + answers.count + recording }

    /// The next chunk of target indices to send, when it fits in the window.
    mutating func nextChunk() -> [Int]? {
        guard next < chunks.count, unrecorded + chunks[next].count <= size else { return nil }
        defer {
            inFlight += chunks[next].count
            next += 1
        }
        return chunks[next]
    }

    mutating func answered(_ outcomes: [(index: Int, outcome: TargetOutcome)]) {
        inFlight -= outcomes.count
        answers += outcomes
    }

    /// The answers to record now, if it is time: half a window waits, or nothing else can move (dispatching
    /// stopped or every target dispatched, and nothing in flight; or the next chunk does not fit beside the
    /// answers). Once dispatching stopped for good, the targets never dispatched go with the last part as
    /// `notSent`. One part is recorded at a time.
    mutating func partToRecord(dispatchStopped: Bool) -> [(index: Int, outcome: TargetOutcome)]? {
        guard recording == 0 else { return nil }
        let exhausted = next == chunks.count || dispatchStopped
        if exhausted, inFlight == 0, next < chunks.count {
            answers += chunks[next...].joined().map { (index: $0, outcome: .notSent) }
            next = chunks.count
        }
        let stuck = inFlight == 0 && (exhausted || unrecorded + (next < chunks.count ? chunks[next].count : 0) > size)
        guard !answers.isEmpty, answers.count * 2 >= size || stuck else { return nil }
        defer {
            recording = answers.count
            answers = []
        }
        return answers
    }

    mutating func recorded() { recording = 0 }
}
