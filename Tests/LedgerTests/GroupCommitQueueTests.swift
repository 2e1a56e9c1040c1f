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

    @Test(
        "with oneBatchPerGroup a group never has two batches running, its commands gather meanwhile, other groups run beside it"
    )
    func oneBatchPerGroup() async throws {
        final class Running: Sendable {
            struct State {
                var groups: [String: Int] = [:]
                var overlaps = 0
                var mostRunning = 0
                var batches: [[Command]] = []
            }
            let state = Mutex(State())
        }
        let running = Running()
        let queue = GroupCommitQueue<Command, Int>(
            maxBatch: 50, maxRunning: 4, oneBatchPerGroup: true, group: \.group, claims: \.claims
        ) { batch in
            let group = batch[0].group
            running.state.withLock { s in
                s.groups[group, default: 0] += 1
                if s.groups[group]! > 1 { s.overlaps += 1 }
                s.mostRunning = max(s.mostRunning, s.groups.values.reduce(0, +))
                s.batches.append(batch)
            }
            try? await Task.sleep(for: .milliseconds(5))
            running.state.withLock { $0.groups[group]! -= 1 }
            return batch.map { .success($0.id) }
        }
        // Two groups (two pushes), each sent by four tasks that submit one after another.
        let commands = (0..<160).map { i in Command(id: i, group: i % 2 == 0 ? "push-a" : "push-b", claims: []) }
        let answers = await withTaskGroup(of: [Int].self) { group in
            for sender in 0..<8 {
                group.addTask {
                    var answered: [Int] = []
                    for command in commands where command.id % 8 == sender {
                        if let id = try? await queue.submit(command) { answered.append(id) }
                    }
                    return answered
                }
            }
            return await group.reduce(into: [Int]()) { $0 += $1 }
        }
        #expect(answers.sorted() == commands.map(\.id))
        let state = running.state.withLock { $0 }
        #expect(state.overlaps == 0, "a group ran two batches at once")
        #expect(state.mostRunning == 2, "the two groups never ran side by side")
        // Four senders per group, one batch at a time: the waiting ones leave together.
        #expect(state.batches.count < commands.count / 2, "commands did not gather: \(state.batches.count) batches")
    }
}
