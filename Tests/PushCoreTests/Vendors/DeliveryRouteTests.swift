import Testing

@testable import PushCore

/// How an installation's device type, `vendor` and `registrationId` choose its service (SPEC §12.3).
@Suite("Delivery routes")
struct DeliveryRouteTests {
    private func route(_ vendor: String?, token: String = "reg-1", deviceType: String = "android") -> DeliveryRoute {
        DeliveryRoute(deviceType: deviceType, vendor: vendor, token: token)
    }

    @Test(
        "Each vendor value of the LeanCloud SDK routes to that vendor's API",
        arguments: [
            ("HMS", AndroidVendor.hms), ("mi", .mi), ("mi-intl", .miIntl), ("oppo", .oppo), ("vivo", .vivo),
            ("mz", .mz), ("honor", .honor),
        ])
    func vendorValues(value: String, vendor: AndroidVendor) {
        #expect(route(value) == .vendor(vendor))
    }

    @Test("lc goes to the own channel even when a registrationId is kept")
    func leanCloudChannel() {
        #expect(route("lc") == .channel(.android))
        #expect(route("lc", token: "") == .channel(.android))
    }

    @Test("vendor fcm with a token gets the LeanCloud FCM module's shape, without one the own channel")
    func fcmVendor() {
        #expect(route("fcm") == .fcm(leanCloudShape: true))
        #expect(route("fcm", token: "") == .channel(.android))
    }

    @Test("No vendor: a registrationId means FCM with today's shape, none means the own channel")
    func noVendor() {
        #expect(route(nil) == .fcm(leanCloudShape: false))
        #expect(route("") == .fcm(leanCloudShape: false))
        #expect(route(nil, token: "") == .channel(.android))
    }

    @Test("A vendor value outside the list is an unknown vendor, never dropped")
    func unknownVendor() {
        let unknown = route("nokia")
        #expect(unknown == .unknownVendor("nokia"))
        #expect(unknown.isUnknownVendor)
        #expect(unknown.vendorCounter == nil)
        #expect(!route("HMS").isUnknownVendor)
    }

    @Test("iOS and Windows devices ignore the vendor field")
    func otherPlatforms() {
        #expect(route("HMS", deviceType: "ios") == .apns)
        #expect(route("mi", deviceType: "windows") == .wns)
    }

    @Test(
        "Successes count per vendor, mi-intl as mi, FCM without a vendor as fcm, the own channel as lc",
        arguments: [
            ("HMS", "hmsSuccesses"), ("mi", "miSuccesses"), ("mi-intl", "miSuccesses"), ("oppo", "oppoSuccesses"),
            ("vivo", "vivoSuccesses"), ("mz", "mzSuccesses"), ("honor", "honorSuccesses"), ("fcm", "fcmSuccesses"),
            ("lc", "lcSuccesses"),
        ])
    func counters(value: String, counter: String) {
        #expect(route(value).vendorCounter == counter)
    }

    @Test("FCM devices saved without a vendor count as fcm, devices without a token as lc")
    func countersWithoutVendor() {
        #expect(route(nil).vendorCounter == "fcmSuccesses")
        #expect(route(nil, token: "").vendorCounter == "lcSuccesses")
        #expect(route(nil, deviceType: "ios").vendorCounter == nil)
    }

    @Test("The record has one counter for each vendor and the own channel")
    func allCounters() {
        #expect(
            Set(AndroidVendor.counters) == [
                "hmsSuccesses", "miSuccesses", "oppoSuccesses", "vivoSuccesses", "mzSuccesses", "honorSuccesses",
                "fcmSuccesses", "lcSuccesses",
            ])
    }

    @Test("Each vendor's key in data and in settings")
    func vendorKeys() {
        #expect(AndroidVendor.contentKeys == ["hms", "mi", "oppo", "vivo", "mz", "honor", "fcm"])
        #expect(AndroidVendor.miIntl.key == "mi")
        #expect(AndroidVendor.lc.key == nil)
    }
}
