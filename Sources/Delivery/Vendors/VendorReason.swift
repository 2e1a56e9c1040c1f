import PushCore

/// Why an Android vendor did not take a device's message, in the vendor's own code (SPEC §12.3).
public struct VendorReason: Sendable, Hashable, CustomStringConvertible {
    /// What the vendor's answer means for the device.
    public enum Kind: Sendable, Hashable {
        /// The token is invalid: the installation is set `valid: false`.
        case invalidToken
        /// Worth another attempt later.
        case retry
        /// Our access token was refused: a new one, and the request again once.
        case auth
        /// The vendor's daily quota for the app is used up: the vendor is stopped for the app's day.
        case quota
        /// Refused for good.
        case permanent
    }

    public let vendor: AndroidVendor
    /// The vendor's code as it answered it (`80300007`, `10302`, `bad_regids`…).
    public let code: String
    public let kind: Kind

    public init(_ vendor: AndroidVendor, _ code: String, _ kind: Kind) {
        self.vendor = vendor
        self.code = code
        self.kind = kind
    }

    /// `VendorQuota` for a quota answer (the reason SPEC §12.3 names), else the vendor and its code, as in
    /// `HMS 80300007`: the reason recorded per device and counted in `errorReasons`.
    public var description: String { kind == .quota ? "VendorQuota" : "\(vendor.rawValue) \(code)" }

    /// The outcome an answer of this kind is for one device.
    public var outcome: DeliveryOutcome {
        switch kind {
        case .invalidToken: .invalidToken(reason: .vendor(self), since: nil)
        case .retry: .retryable(reason: .vendor(self), retryAfter: nil)
        case .auth: .expiredProviderToken(reason: .vendor(self))
        case .quota, .permanent: .permanent(reason: .vendor(self))
        }
    }
}
