import Testing

@testable import PushCore

/// `app set` and the vendors' settings (SPEC §12.3): the listed keys, also per profile, are taken; anything
/// else, and malformed values, are refused naming the key.
@Suite("Vendor settings in app set")
struct VendorAppSettingsTests {
    private func refusal(_ key: String, _ value: String) -> String? {
        do {
            _ = try AppSettings.parse(key: key, value: value)
            return nil
        } catch {
            #expect(error.code == 1)
            return error.message
        }
    }

    @Test(
        "Every vendor setting SPEC 12.3 lists is taken",
        arguments: [
            ("hms.app_id", "10086"), ("hms.client_secret", "s"), ("hms.endpoint", "https://push.example"),
            ("hms.token_endpoint", "https://auth.example/oauth2/v3/token"), ("hms.intent_host", "cn.leancloud.push"),
            ("mi.app_secret", "s"), ("mi.package_name", "com.example"), ("mi.endpoint", "https://mi.example"),
            ("mi.global_endpoint", "https://mi-global.example"), ("oppo.app_key", "k"), ("oppo.master_secret", "s"),
            ("oppo.endpoint", "https://oppo.example"), ("vivo.app_id", "1234"), ("vivo.app_key", "k"),
            ("vivo.app_secret", "s"), ("vivo.endpoint", "https://vivo.example"), ("mz.app_id", "110"),
            ("mz.app_secret", "s"), ("mz.endpoint", "https://mz.example"), ("honor.app_id", "a"),
            ("honor.client_id", "c"), ("honor.client_secret", "s"), ("honor.endpoint", "https://honor.example"),
            ("honor.token_endpoint", "https://honor.example/auth/token"), ("hms.ca_file", "/etc/ca.pem"),
            ("mi.ca_file", "/etc/ca.pem"), ("oppo.ca_file", "/etc/ca.pem"), ("vivo.ca_file", "/etc/ca.pem"),
            ("mz.ca_file", "/etc/ca.pem"), ("honor.ca_file", "/etc/ca.pem"),
        ])
    func listedKeys(key: String, value: String) throws {
        #expect(try AppSettings.parse(key: key, value: value) == .string(value))
    }

    @Test(
        "Each setting is taken per profile as <vendor>.<profile>.<key>",
        arguments: [
            ("hms.prod.app_id", "10086"), ("mi.prod.app_secret", "s"), ("vivo.prod.app_id", "7"),
            ("honor.beta.client_id", "c"), ("oppo.beta.endpoint", "https://oppo.example"),
        ])
    func perProfileKeys(key: String, value: String) throws {
        #expect(try AppSettings.parse(key: key, value: value) == .string(value))
    }

    @Test(
        "A key no vendor has is refused, naming it",
        arguments: ["hms.app_secret", "nokia.app_id", "mi.client_secret", "vivo.prod.master_secret", "hms.a.b.app_id"])
    func unknownKeys(key: String) {
        #expect(refusal(key, "x") == "Unknown setting \(key).")
    }

    @Test(
        "An endpoint that is not an https URL is refused, naming the key",
        arguments: [
            "hms.endpoint", "hms.token_endpoint", "mi.global_endpoint", "oppo.endpoint", "honor.prod.token_endpoint",
        ])
    func httpEndpoint(key: String) {
        #expect(
            refusal(key, "http://push.example") == "Setting \(key) takes an https URL, not \"http://push.example\".")
    }

    @Test(
        "vivo's and Meizu's app ids must be positive integers",
        arguments: [("vivo.app_id", "abc"), ("vivo.prod.app_id", "12a"), ("mz.app_id", "0"), ("vivo.app_id", "-3")])
    func integerAppIds(key: String, value: String) {
        #expect(refusal(key, value) == "Setting \(key) takes a positive integer, not \"\(value)\".")
    }

    @Test(
        "An intent host must be a bare host name",
        arguments: ["cn.leancloud.push:8443", "https://cn.leancloud.push", "cn.leancloud.push/x", "a b"])
    func badIntentHost(value: String) {
        #expect(refusal("hms.intent_host", value) == "Setting hms.intent_host takes a host name, not \"\(value)\".")
    }

    @Test("An empty value removes a vendor setting")
    func emptyRemoves() throws {
        #expect(try AppSettings.parse(key: "hms.app_id", value: "") == nil)
    }
}
