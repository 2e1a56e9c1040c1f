/// Fractions of otherwise successful APNs/FCM requests answered with a transient error, drawn from a seeded
/// generator so a run can be repeated.
///
/// The draws are reproducible for a given order of requests; with several connections in flight that order (and so
/// which request fails) varies, but the proportions do not.
public struct FailureRatios: Sendable, Hashable {
    /// 429: APNs `TooManyRequests`, FCM `QUOTA_EXCEEDED`.
    public var tooManyRequests: Double
    /// 500: APNs `InternalServerError`, FCM `INTERNAL`.
    public var internalServerError: Double
    /// 503: APNs `ServiceUnavailable`, FCM `UNAVAILABLE`.
    public var serviceUnavailable: Double
    public var seed: UInt64

    public init(
        tooManyRequests: Double = 0, internalServerError: Double = 0, serviceUnavailable: Double = 0, seed: UInt64 = 1
    ) {
        self.tooManyRequests = tooManyRequests
        self.internalServerError = internalServerError
        self.serviceUnavailable = serviceUnavailable
        self.seed = seed
    }

    public static let none = FailureRatios()

    var isEnabled: Bool { self.tooManyRequests > 0 || self.internalServerError > 0 || self.serviceUnavailable > 0 }
}
