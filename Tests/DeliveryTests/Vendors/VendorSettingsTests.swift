import Testing

@testable import Delivery

/// A vendor profile's settings (SPEC §12.3): no `deviceProfile` reads the unprefixed keys (LeanCloud's
/// `_default`); a named profile reads `<vendor>.<profile>.<key>` only and inherits nothing.
@Suite("Vendor profile settings")
struct VendorSettingsTests {
    static let app: [String: String] = [
        "hms.app_id": "default-app", "hms.client_secret": "default-secret", "hms.p1.app_id": "p1-app",
        "hms.p2.app_id": "p2-app", "hms.p2.client_secret": "p2-secret", "mi.app_secret": "mi-secret",
    ]

    @Test("No profile, or an empty one, reads the unprefixed keys")
    func defaultProfile() {
        for profile in [nil, ""] as [String?] {
            let settings = VendorFixture.settings("hms", profile: profile, Self.app)
            #expect(settings["app_id"] == "default-app")
            #expect(settings["client_secret"] == "default-secret")
            #expect(settings.profile == "")
        }
    }

    @Test("The unprefixed keys do not read a profile's keys")
    func defaultIgnoresProfiles() {
        let settings = VendorFixture.settings("hms", ["hms.p1.app_id": "p1-app"])
        #expect(settings["app_id"] == nil)
        #expect(settings["p1.app_id"] == nil)
    }

    @Test("A named profile reads its own keys")
    func namedProfile() {
        let settings = VendorFixture.settings("hms", profile: "p2", Self.app)
        #expect(settings["app_id"] == "p2-app")
        #expect(settings["client_secret"] == "p2-secret")
    }

    @Test("A named profile does not inherit the unprefixed keys")
    func noInheritance() {
        let settings = VendorFixture.settings("hms", profile: "p1", Self.app)
        #expect(settings["app_id"] == "p1-app")
        #expect(settings["client_secret"] == nil)
    }

    @Test("A named profile's missing credential is NoCredentials naming the profile's setting")
    func missingInProfile() {
        let settings = VendorFixture.settings("hms", profile: "p1", Self.app)
        do {
            _ = try settings.require(["app_id", "client_secret"])
        } catch {
            #expect(error.description == "NoCredentials(hms.p1.client_secret)")
        }
    }

    @Test("A profile without any keys has no credentials")
    func emptyProfile() {
        let settings = VendorFixture.settings("hms", profile: "p3", Self.app)
        do {
            _ = try settings.require(["app_id", "client_secret"])
            Issue.record("a profile without keys has credentials")
        } catch {
            #expect(error.description == "NoCredentials(hms.p3.app_id)")
        }
    }

    @Test("The unprefixed credentials are returned in order")
    func requireReturnsValues() throws {
        let settings = VendorFixture.settings("hms", Self.app)
        #expect(try settings.require(["app_id", "client_secret"]) == ["default-app", "default-secret"])
    }

    @Test("An empty value counts as no value")
    func emptyValue() {
        #expect(VendorFixture.settings("mi", ["mi.app_secret": ""])["app_secret"] == nil)
    }

    @Test("Setting names are written as an operator writes them")
    func names() {
        #expect(VendorFixture.settings("vivo", [:]).name("app_id") == "vivo.app_id")
        #expect(VendorFixture.settings("vivo", profile: "eu", [:]).name("app_id") == "vivo.eu.app_id")
    }

    @Test("Another vendor's keys are not read")
    func otherVendor() {
        let settings = VendorFixture.settings("mi", Self.app)
        #expect(settings["app_secret"] == "mi-secret")
        #expect(settings["app_id"] == nil)
    }

    @Test("Each vendor needs the credentials SPEC 12.3 names")
    func requiredKeys() {
        #expect(Set(VendorClients.requiredKeys(.hms)) == ["app_id", "client_secret"])
        #expect(Set(VendorClients.requiredKeys(.honor)) == ["app_id", "client_id", "client_secret"])
        #expect(Set(VendorClients.requiredKeys(.mi)) == ["app_secret", "package_name"])
        #expect(Set(VendorClients.requiredKeys(.miIntl)) == ["app_secret", "package_name"])
        #expect(Set(VendorClients.requiredKeys(.oppo)) == ["app_key", "master_secret"])
        #expect(Set(VendorClients.requiredKeys(.vivo)) == ["app_id", "app_key", "app_secret"])
        #expect(Set(VendorClients.requiredKeys(.mz)) == ["app_id", "app_secret"])
    }
}
