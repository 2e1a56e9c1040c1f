import Foundation
import PushCore
import Synchronization

/// A clock only the test moves. Reading it gives the instant it was last moved to; a sleep on it ends when
/// `advance` reaches the sleep's deadline (or its task is cancelled), never by real time passing. So a test
/// of a lease, a poll or a retry delay moves time past it instead of waiting.
public final class TestClock: Sendable {
    private struct Sleeper {
        let id: Int
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var nextId = 0
        var sleepers: [Sleeper] = []
        var cancelled: Set<Int> = []
    }

    private let state: Mutex<State>

    /// Starts at `start`, by default the real time now (so events fall in today's partitions of the log).
    public init(at start: Date = Date()) { state = Mutex(State(now: start)) }

    public var serviceClock: ServiceClock {
        ServiceClock(now: { [self] in now() }, sleep: { [self] in try await sleep(for: $0) })
    }

    public func now() -> Date { state.withLock { $0.now } }

    /// How many sleeps are waiting for the clock to move.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }

    /// Moves the time `duration` ahead and ends every sleep whose deadline it reaches, earliest first.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.adding(duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (really, in short steps) until `count` sleeps are waiting on this clock, so that a test moves the
    /// time only once the code under test has reached its wait.
    public func waitForSleepers(_ count: Int = 1) async throws {
        while sleeping < count { try await Task.sleep(for: .milliseconds(1)) }
    }

    private func sleep(for duration: Duration) async throws {
        let id = state.withLock { state -> Int in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    let deadline = state.now.adding(duration)
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
