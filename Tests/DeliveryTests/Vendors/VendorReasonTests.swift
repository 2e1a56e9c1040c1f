import Testing

@testable import Delivery

/// How a vendor's answer is recorded (SPEC §12.3): the vendor and its code, `VendorQuota` for a daily quota,
/// and the refusals found before sending.
@Suite("Vendor reasons")
struct VendorReasonTests {
    @Test("A reason is recorded as the vendor and its code")
    func description() {
        #expect(VendorReason(.hms, "80300007", .invalidToken).description == "HMS 80300007")
        #expect(VendorReason(.miIntl, "10017", .permanent).description == "mi-intl 10017")
    }

    @Test("A daily quota is recorded as VendorQuota")
    func quota() {
        #expect(VendorReason(.mi, "200001", .quota).description == "VendorQuota")
        #expect(ProviderReason.vendor(VendorReason(.oppo, "33", .quota)).description == "VendorQuota")
    }

    @Test("Each kind of answer is its outcome for the device")
    func outcomes() {
        let invalid = VendorReason(.vivo, "10302", .invalidToken)
        #expect(invalid.outcome == .invalidToken(reason: .vendor(invalid), since: nil))
        let retry = VendorReason(.vivo, "10040", .retry)
        #expect(retry.outcome == .retryable(reason: .vendor(retry), retryAfter: nil))
        let auth = VendorReason(.vivo, "10000", .auth)
        #expect(auth.outcome == .expiredProviderToken(reason: .vendor(auth)))
        let quota = VendorReason(.vivo, "10070", .quota)
        #expect(quota.outcome == .permanent(reason: .vendor(quota)))
        let permanent = VendorReason(.vivo, "10050", .permanent)
        #expect(permanent.outcome == .permanent(reason: .vendor(permanent)))
    }

    @Test("Refusals before sending are PassThroughUnsupported and ContentTooLong")
    func refusals() {
        #expect(VendorRefusal.passThroughUnsupported.description == "PassThroughUnsupported")
        #expect(VendorRefusal.contentTooLong("a title of 51").description == "ContentTooLong")
        #expect(ProviderReason.vendorRefusal(.passThroughUnsupported).description == "PassThroughUnsupported")
    }
}
