/// The push providers the simulator imitates; rules, statistics and recordings are kept per provider.
public enum SimulatedProvider: String, Sendable, Hashable, CaseIterable {
    case apns
    case fcm
    case wns
    /// Huawei Push Kit.
    case hms
    case honor
    /// Xiaomi, its China and global hosts alike.
    case mi
    /// OPPO, its China and global hosts alike.
    case oppo
    case vivo
    /// Meizu Flyme.
    case mz

    /// The Android vendors, in the order `/_sim/stats` lists them.
    public static let androidVendors: [SimulatedProvider] = [.hms, .honor, .mi, .oppo, .vivo, .mz]

    /// The vendors whose sends need a token from their own token endpoint (`<vendor>Auth` in `/_sim/stats`);
    /// Xiaomi and Meizu authenticate every request by itself.
    public static let vendorsWithTokenExchange: [SimulatedProvider] = [.hms, .honor, .oppo, .vivo]

    var isAndroidVendor: Bool { Self.androidVendors.contains(self) }
}
