import Ledger
import Testing

@testable import Delivery

/// The sender's window (docs/fanout.md): requests in flight, answers waiting to be recorded and the part
/// being recorded never exceed its size, which is what bounds the devices a crash can make a restart send
/// again.
struct SendWindowTests {
    /// Plays a batch through the window with answers arriving in a random order and parts recorded when the
    /// window asks, checking the bound after every step and that every target is recorded exactly once.
    @Test(arguments: [(1000, 250, 50), (1000, 250, 250), (37, 10, 3), (5, 250, 50), (1000, 1, 1)])
    func neverMoreThanTheWindowIsUnrecorded(targets: Int, size: Int, chunk: Int) {
        var generator = SystemRandomNumberGenerator()
        var window = SendWindow(pending: Array(0..<targets), size: size, chunkSize: chunk)
        var inFlight: [[Int]] = []
        var recording: [Int]? = nil
        var recorded: [Int] = []
        var peak = 0
        while true {
            while let next = window.nextChunk() { inFlight.append(next) }
            if recording == nil, let part = window.partToRecord(dispatchStopped: false) {
                recording = part.map(\.index)
            }
            peak = max(peak, window.unrecorded)
            #expect(window.unrecorded <= size)
            if inFlight.isEmpty && recording == nil { break }
            // Either an answer or the recording finishes next.
            if let part = recording, inFlight.isEmpty || Bool.random(using: &generator) {
                recorded += part
                recording = nil
                window.recorded()
            } else {
                let chunk = inFlight.remove(at: Int.random(in: 0..<inFlight.count, using: &generator))
                window.answered(chunk.map { (index: $0, outcome: TargetOutcome.delivered) })
            }
        }
        #expect(recorded.sorted() == Array(0..<targets))
        #expect(peak <= size)
    }

    @Test func dispatchingStoppedSendsTheRestAsNotSentInTheLastPart() {
        var window = SendWindow(pending: [3, 4, 5, 6, 7], size: 4, chunkSize: 2)
        let first = window.nextChunk()
        #expect(first == [3, 4])
        #expect(window.partToRecord(dispatchStopped: true) == nil)  // the chunk is still in flight
        window.answered([(3, .delivered), (4, .delivered)])
        let part = window.partToRecord(dispatchStopped: true)
        #expect(part?.map(\.index) == [3, 4, 5, 6, 7])
        #expect(part?.suffix(3).allSatisfy { $0.outcome == .notSent } == true)
        window.recorded()
        #expect(window.nextChunk() == nil)
        #expect(window.unrecorded == 0)
    }

    @Test func aPartWaitsForHalfAWindowUnlessNothingElseCanMove() {
        var window = SendWindow(pending: Array(0..<100), size: 10, chunkSize: 2)
        var chunks: [[Int]] = []
        while let chunk = window.nextChunk() { chunks.append(chunk) }
        #expect(chunks.count == 5)
        window.answered(chunks[0].map { ($0, .delivered) })
        #expect(window.partToRecord(dispatchStopped: false) == nil)  // 2 of 10 answered, 8 in flight
        window.answered(chunks[1].map { ($0, .delivered) })
        window.answered(chunks[2].map { ($0, .delivered) })
        #expect(window.partToRecord(dispatchStopped: false)?.count == 6)
    }
}
