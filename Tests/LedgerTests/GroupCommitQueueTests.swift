import Synchronization
import Testing

@testable import Ledger

/// The batching rules on their own, without a database.
@Suite("Group commit queue")
struct GroupCommitQueueTests {
    struct Command: Sendable {
        let id: Int
        let group: String
        let claims: [String]
    }

    final class Recorder: Sendable {
        struct State {
            var batches: [[Command]] = []
            var running = 0
            var mostRunning = 0
        }
        let state = Mutex(State())
    }

    @Test("batches hold one group, never two commands with one claim, at most maxBatch; runners stay within maxRunning")
    func rules() async throws {
        let recorder = Recorder()
        let queue = GroupCommitQueue<Command, Int>(
            maxBatch: 5, maxRunning: 2, group: \.group, claims: \.claims
        ) { batch in
            recorder.state.withLock { s in
                s.running += 1
                s.mostRunning = max(s.mostRunning, s.running)
                s.batches.append(batch)
            }
            try? await Task.sleep(for: .milliseconds(5))
            recorder.state.withLock { $0.running -= 1 }
            // Odd ids fail, so failures reach their own caller only.
            return batch.map { $0.id % 2 == 0 ? .success($0.id * 10) : .failure(CancellationError()) }
        }
        let commands = (0..<200).map { i in
            Command(id: i, group: i % 3 == 0 ? "a" : "b", claims: ["token:\(i % 4)", "iid:\(i)"])
        }
        let answers = await withTaskGroup(of: (Int, Int?).self) { group in
            for command in commands {
                group.addTask { (command.id, try? await queue.submit(command)) }
            }
            return await group.reduce(into: [Int: Int?]()) { $0[$1.0] = $1.1 }
        }
        for command in commands {
            #expect(answers[command.id]! == (command.id % 2 == 0 ? command.id * 10 : nil))
        }
        let state = recorder.state.withLock { $0 }
        #expect(state.batches.map(\.count).reduce(0, +) == 200)
        #expect(state.mostRunning <= 2)
        #expect(state.batches.contains { $0.count > 1 }, "no batch ever formed")
        for batch in state.batches {
            #expect(batch.count <= 5)
            #expect(Set(batch.map(\.group)).count == 1)
            let claims = batch.flatMap(\.claims)
            #expect(Set(claims).count == claims.count, "a claim shared within \(batch.map(\.id))")
        }
    }
}
