/// Why ``SimulatorServer`` could not start or report where it listens.
public struct SimulatorServerError: Error, CustomStringConvertible, Hashable {
    public var description: String

    static let alreadyStarted = SimulatorServerError(description: "the simulator's run() was already called")
    static let stopped = SimulatorServerError(description: "the simulator is not running")
}
