extension InjectionRule {
    /// The built-in rules.
    ///
    /// APNs device tokens must be hex, so the APNs prefixes are hex words or the status code followed by a digit:
    ///
    /// | provider | token prefix    | answer                                                   |
    /// |----------|-----------------|----------------------------------------------------------|
    /// | APNs     | `bad0`          | 400 `BadDeviceToken`                                     |
    /// | APNs     | `dead`          | 410 `Unregistered` + `timestamp`                         |
    /// | APNs     | `0ff0`          | 410 `ExpiredToken` + `timestamp`                         |
    /// | APNs     | `70b1c`         | 400 `DeviceTokenNotForTopic`                             |
    /// | APNs     | `4290`          | 429 `TooManyRequests` for the first 2 attempts, then 200 |
    /// | APNs     | `5030`          | 503 `ServiceUnavailable` for the first 2 attempts, then 200 |
    /// | APNs     | `5000`          | 500 `InternalServerError` always                         |
    /// | FCM      | `unregistered-` | 404 `UNREGISTERED`                                       |
    /// | FCM      | `invalid-`      | 400 `INVALID_ARGUMENT`                                   |
    /// | FCM      | `mismatch-`     | 403 `SENDER_ID_MISMATCH`                                 |
    /// | FCM      | `quota-`        | 429 `QUOTA_EXCEEDED` for the first 2 attempts, then 200  |
    /// | FCM      | `unavailable-`  | 503 `UNAVAILABLE` for the first 2 attempts, then 200     |
    /// | FCM      | `internal-`     | 500 `INTERNAL` always                                    |
    /// | WNS      | `expired-`      | 410 `ChannelExpired`                                     |
    /// | WNS      | `notfound-`     | 404 `ChannelNotFound`                                    |
    /// | WNS      | `throttled-`    | 406 `Throttled` for the first 2 attempts, then 200       |
    /// | WNS      | `unavailable-`  | 503 `ServiceUnavailable` for the first 2 attempts, then 200 |
    ///
    /// WNS rules match the channel id, the part of the channel URI after `/wns/`.
    ///
    /// The Android vendors (HMS, Honor, Xiaomi, OPPO, vivo, Meizu) match each registration id of a request, and a
    /// rule's `reason` names a ``VendorSignal`` that the vendor's look-alike answers in its own words:
    ///
    /// | token prefix   | signal        | vendors                      |
    /// |----------------|---------------|------------------------------|
    /// | `invalid-`     | `invalid`     | all                          |
    /// | `unavailable-` | `unavailable` | all, first 2 attempts        |
    /// | `quota-`       | `quota`       | Xiaomi, OPPO, vivo           |
    /// | `error-`       | `error`       | all                          |
    ///
    /// A uniformly random 64-hex-digit token starts with a given 4-digit prefix once in 65,536; load tests that want
    /// no failures at all should generate tokens that avoid the prefixes or set the rules to `[]`.
    public static let defaults: [InjectionRule] =
        pushServiceDefaults + SimulatedProvider.androidVendors.flatMap(Self.vendorDefaults(for:))

    private static let pushServiceDefaults: [InjectionRule] = [
        InjectionRule(provider: .apns, match: .prefix("bad0"), status: 400, reason: "BadDeviceToken"),
        InjectionRule(provider: .apns, match: .prefix("dead"), status: 410, reason: "Unregistered"),
        InjectionRule(provider: .apns, match: .prefix("0ff0"), status: 410, reason: "ExpiredToken"),
        InjectionRule(provider: .apns, match: .prefix("70b1c"), status: 400, reason: "DeviceTokenNotForTopic"),
        InjectionRule(
            provider: .apns, match: .prefix("4290"), status: 429, reason: "TooManyRequests", failingAttempts: 2),
        InjectionRule(
            provider: .apns, match: .prefix("5030"), status: 503, reason: "ServiceUnavailable", failingAttempts: 2
        ),
        InjectionRule(provider: .apns, match: .prefix("5000"), status: 500, reason: "InternalServerError"),
        InjectionRule(provider: .fcm, match: .prefix("unregistered-"), status: 404, reason: "UNREGISTERED"),
        InjectionRule(provider: .fcm, match: .prefix("invalid-"), status: 400, reason: "INVALID_ARGUMENT"),
        InjectionRule(provider: .fcm, match: .prefix("mismatch-"), status: 403, reason: "SENDER_ID_MISMATCH"),
        InjectionRule(
            provider: .fcm, match: .prefix("quota-"), status: 429, reason: "QUOTA_EXCEEDED", failingAttempts: 2),
        InjectionRule(
            provider: .fcm, match: .prefix("unavailable-"), status: 503, reason: "UNAVAILABLE", failingAttempts: 2
        ),
        InjectionRule(provider: .fcm, match: .prefix("internal-"), status: 500, reason: "INTERNAL"),
        InjectionRule(provider: .wns, match: .prefix("expired-"), status: 410, reason: "ChannelExpired"),
        InjectionRule(provider: .wns, match: .prefix("notfound-"), status: 404, reason: "ChannelNotFound"),
        InjectionRule(
            provider: .wns, match: .prefix("throttled-"), status: 406, reason: "Throttled", failingAttempts: 2),
        InjectionRule(
            provider: .wns, match: .prefix("unavailable-"), status: 503, reason: "ServiceUnavailable",
            failingAttempts: 2),
    ]

    /// Only Xiaomi, OPPO and vivo have a daily-quota answer; a `quota-` id at the others is an ordinary device.
    private static func vendorDefaults(for vendor: SimulatedProvider) -> [InjectionRule] {
        let hasQuota = vendor == .mi || vendor == .oppo || vendor == .vivo
        let signals: [(String, VendorSignal, Int?)] =
            [("invalid-", .invalid, nil), ("unavailable-", .unavailable, 2)]
            + (hasQuota ? [("quota-", .quota, nil)] : []) + [("error-", .error, nil)]
        return signals.map { prefix, signal, attempts in
            InjectionRule(
                provider: vendor, match: .prefix(prefix), status: signal.nominalStatus, reason: signal.rawValue,
                failingAttempts: attempts)
        }
    }
}
