import Testing

@testable import Simulator

@Suite("Vendor look-alike helpers")
struct VendorUnitTests {
    @Test("path prefixes choose the vendor and host, never a longer prefix's vendor")
    func routes() throws {
        let global = try #require(VendorRoute(path: "/mi-global/v3/message/regid"))
        #expect(global.vendor == .mi && global.isGlobal && global.path == "/v3/message/regid")
        let china = try #require(VendorRoute(path: "/mi/v3/message/regid"))
        #expect(china.vendor == .mi && !china.isGlobal)
        #expect(VendorRoute(path: "/oppo-global/server/v1/auth")?.tokenRealm == .oppoGlobal)
        #expect(VendorRoute(path: "/oppo/server/v1/auth")?.isTokenExchange == true)
        #expect(VendorRoute(path: "/mix/v3") == nil)
        #expect(VendorRoute(path: "/hms") == nil)
    }

    @Test("Meizu's signature sorts the fields, skips sign and appends the secret")
    func meizuSignature() {
        let fields = ["pushIds": "a,b", "appId": "110001", "sign": "ignored", "messageJson": "{\"x\":\"1 & 2\"}"]
        let expected = VendorClient.md5("appId=110001messageJson={\"x\":\"1 & 2\"}pushIds=a,bs3cret")
        #expect(MeizuRoute.signature(of: fields, secret: "s3cret") == expected)
    }

    @Test("every vendor has default rules for invalid-, unavailable- and error-; quota- only where it means something")
    func defaultRules() {
        let settings = RuntimeSettings(SimulatorConfiguration())
        let quotaVendors: [SimulatedProvider] = [.mi, .oppo, .vivo]
        for vendor in SimulatedProvider.androidVendors {
            #expect(settings.rule(for: vendor, token: "invalid-1"[...])?.reason == "invalid")
            #expect(settings.rule(for: vendor, token: "unavailable-1"[...])?.failingAttempts == 2)
            #expect(settings.rule(for: vendor, token: "error-1"[...])?.reason == "error")
            #expect((settings.rule(for: vendor, token: "quota-1"[...]) != nil) == quotaVendors.contains(vendor))
        }
    }
}
