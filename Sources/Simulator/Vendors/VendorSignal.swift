/// What an injection rule does to a registration id at an Android vendor look-alike, named by the rule's `reason`.
/// The vendors have no common error vocabulary, so a rule names the effect and each look-alike answers it in its
/// own words (SPEC §12.3's invalid-token, retry and daily-quota signals, plus a permanent error).
enum VendorSignal: String, CaseIterable {
    /// The vendor's invalid-token signal for that device.
    case invalid
    /// The vendor's retry answer for the whole request.
    case unavailable
    /// The vendor's daily-quota answer for the whole request (Xiaomi, OPPO, vivo; the others have none).
    case quota
    /// A permanent error: per device where the vendor reports errors per device, else for the whole request.
    case error

    /// The HTTP status a rule of this signal carries in `/_sim/config`; the look-alike's answer decides the real one.
    var nominalStatus: Int {
        switch self {
        case .invalid: return 410
        case .unavailable: return 503
        case .quota: return 429
        case .error: return 400
        }
    }
}
