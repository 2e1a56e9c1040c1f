/// The push providers the simulator imitates; rules, statistics and recordings are kept per provider.
public enum SimulatedProvider: String, Sendable, Hashable, CaseIterable {
    case apns
    case fcm
    case wns
}
