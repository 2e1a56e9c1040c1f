/// Whether the server is listening yet, and who is waiting to hear where.
struct ListeningState {
    enum Phase {
        case idle
        case starting
        case listening(SimulatorInfo)
        case stopped(any Error)
    }

    var phase: Phase = .idle
    var waiters: [Int: CheckedContinuation<SimulatorInfo, any Error>] = [:]
    var nextWaiterID = 0

    /// Moves to a final or listening phase and hands back the waiters to resume outside the lock.
    mutating func settle(_ phase: Phase) -> [CheckedContinuation<SimulatorInfo, any Error>] {
        self.phase = phase
        let waiters = Array(self.waiters.values)
        self.waiters.removeAll()
        return waiters
    }
}
