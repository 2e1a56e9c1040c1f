/// Delay added before each APNs/FCM answer: `fixedMilliseconds` plus a uniform random `0...jitterMilliseconds`.
///
/// The answer is scheduled on the connection's event loop, so a slow simulated provider costs no thread and other
/// streams on the same connection keep flowing, as with the real services.
public struct SimulatorLatency: Sendable, Hashable {
    public var fixedMilliseconds: Int
    public var jitterMilliseconds: Int

    public init(fixedMilliseconds: Int = 0, jitterMilliseconds: Int = 0) {
        self.fixedMilliseconds = max(0, fixedMilliseconds)
        self.jitterMilliseconds = max(0, jitterMilliseconds)
    }

    public static let none = SimulatorLatency()
}
