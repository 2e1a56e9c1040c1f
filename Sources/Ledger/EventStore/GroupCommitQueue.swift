import Synchronization

/// Group commit: concurrent callers' commands wait here and are handed to `run` in batches, each batch
/// committed by `run` in one database transaction. A save's own statements are cheap next to what every
/// transaction costs PostgreSQL (a BEGIN and a COMMIT, a WAL flush, a round trip that wakes a backend), so
/// many creates in one pipelined transaction cost far less than a transaction each.
///
/// Batches form by themselves: while `maxRunning` batches are in flight, newcomers wait and leave together
/// with the next free runner, so a lone request goes alone at once and a crowd shares commits. Commands
/// that share a `claim` (say, a device token) never share a batch: the later one waits for the next, so
/// one batch never races with itself. A batch holds commands of one `group` (an app) only. With
/// `oneBatchPerGroup`, a group's next batch waits until its running one is done: for commands that lock the
/// same rows (a push's stream), which would only queue on the lock, and gather more commands while waiting here.
public final class GroupCommitQueue<Command: Sendable, Outcome: Sendable>: Sendable {
    public typealias Runner = @Sendable ([Command]) async -> [Result<Outcome, any Error>]

    private struct Waiting: Sendable {
        let command: Command
        let continuation: CheckedContinuation<Outcome, any Error>
    }
    private struct State: Sendable {
        var waiting: [Waiting] = []
        var running = 0
        /// With `oneBatchPerGroup`: the groups whose batch runs now.
        var busy: Set<String> = []
    }

    private let state = Mutex(State())
    private let maxBatch: Int
    private let maxRunning: Int
    private let oneBatchPerGroup: Bool
    private let group: @Sendable (Command) -> String
    private let claims: @Sendable (Command) -> [String]
    private let run: Runner

    /// `run` answers one result per command, in order.
    public init(
        maxBatch: Int, maxRunning: Int, oneBatchPerGroup: Bool = false, group: @escaping @Sendable (Command) -> String,
        claims: @escaping @Sendable (Command) -> [String], run: @escaping Runner
    ) {
        self.maxBatch = max(1, maxBatch)
        self.maxRunning = max(1, maxRunning)
        self.oneBatchPerGroup = oneBatchPerGroup
        self.group = group
        self.claims = claims
        self.run = run
    }

    /// Waits for `command`'s batch to be run and answers its outcome.
    public func submit(_ command: Command) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            let startsRunner = state.withLock { state in
                state.waiting.append(Waiting(command: command, continuation: continuation))
                guard state.running < maxRunning else { return false }
                state.running += 1
                return true
            }
            if startsRunner { Task { await self.drain() } }
        }
    }

    /// One runner: takes batches until nobody waits (or, with `oneBatchPerGroup`, until every waiting
    /// command's group has a batch running: its runner takes them next).
    private func drain() async {
        var finished: String?
        while let batch = nextBatch(after: finished) {
            let outcomes = await run(batch.map(\.command))
            precondition(outcomes.count == batch.count, "a group commit runner answered the wrong number of results")
            for (waiting, outcome) in zip(batch, outcomes) { waiting.continuation.resume(with: outcome) }
            finished = group(batch[0].command)
        }
    }

    /// The oldest waiting command (of a group with no batch running, with `oneBatchPerGroup`) and as many later
    /// ones (in order) as may join it; nil, and one runner less, when there is none. `finished`: the group of
    /// the batch this runner has just run.
    private func nextBatch(after finished: String?) -> [Waiting]? {
        state.withLock { state in
            if let finished { state.busy.remove(finished) }
            guard
                let first = state.waiting.first(where: {
                    !oneBatchPerGroup || !state.busy.contains(self.group($0.command))
                })
            else {
                state.running -= 1
                return nil
            }
            let group = self.group(first.command)
            if oneBatchPerGroup { state.busy.insert(group) }
            var batch: [Waiting] = []
            var left: [Waiting] = []
            var claimed: Set<String> = []
            for waiting in state.waiting {
                let wanted = claims(waiting.command)
                if batch.count < maxBatch, self.group(waiting.command) == group, claimed.isDisjoint(with: wanted) {
                    batch.append(waiting)
                    claimed.formUnion(wanted)
                } else {
                    left.append(waiting)
                }
            }
            state.waiting = left
            return batch
        }
    }
}
