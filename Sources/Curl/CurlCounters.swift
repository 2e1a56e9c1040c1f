import Synchronization

/// Live counters behind `CurlStatistics`; written by submitters and the driver thread, read by anyone.
final class CurlCounters: Sendable {
    let requests = Atomic<Int>(0)
    let responses = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let retries = Atomic<Int>(0)
    let connectionsOpened = Atomic<Int>(0)
    let stalledCompletions = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    let queued = Atomic<Int>(0)
    let rounds = Atomic<Int>(0)
    let pausedRounds = Atomic<Int>(0)

    func snapshot() -> CurlStatistics {
        CurlStatistics(
            requests: requests.load(ordering: .relaxed),
            responses: responses.load(ordering: .relaxed),
            failures: failures.load(ordering: .relaxed),
            retries: retries.load(ordering: .relaxed),
            connectionsOpened: connectionsOpened.load(ordering: .relaxed),
            stalledCompletions: stalledCompletions.load(ordering: .relaxed),
            inFlight: inFlight.load(ordering: .relaxed),
            queued: queued.load(ordering: .relaxed),
            rounds: rounds.load(ordering: .relaxed),
            pausedRounds: pausedRounds.load(ordering: .relaxed)
        )
    }
}
