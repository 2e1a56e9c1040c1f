import PushCore
import Testing

@testable import Delivery

/// Xiaomi's form fields without the regids (docs/vendors.md): the LeanCloud JSON as `payload`, title ≤ 50 and
/// description ≤ 128 characters, `pass_through` 1 for a silent push.
@Suite("Xiaomi messages")
struct XiaomiMessageTests {
    private func client(_ extra: [String: String] = [:]) throws -> XiaomiClient {
        let values = ["mi.app_secret": "secret", "mi.package_name": "com.example"].merging(extra) { $1 }
        return try XiaomiClient(vendor: .mi, settings: VendorFixture.settings("mi", values), logger: nil)
    }

    @Test("A notification's form: package, payload, title, description, notify_type -1, notify_effect 1")
    func notification() async throws {
        try await withClient({ try client() }) { mi in
            let message = try mi.message(for: VendorFixture.content(["title": "T", "alert": "B"]), timeToLive: nil)
                .get()
            #expect(
                message.body == [
                    "restricted_package_name": "com.example", "payload": #"{"_nid":"n1","alert":"B","title":"T"}"#,
                    "pass_through": "0", "title": "T", "description": "B", "notify_type": "-1",
                    "extra.notify_effect": "1",
                ])
        }
    }

    @Test("A silent push is a pass-through message")
    func passThrough() async throws {
        try await withClient({ try client() }) { mi in
            let message = try mi.message(for: VendorFixture.content(["alert": "B", "silent": true]), timeToLive: nil)
                .get()
            #expect(message.body["pass_through"] == "1")
            #expect(message.silent)
        }
    }

    @Test("The expiration is time_to_live in milliseconds")
    func timeToLive() async throws {
        try await withClient({ try client() }) { mi in
            let message = try mi.message(for: VendorFixture.content(["alert": "B"]), timeToLive: 3600).get()
            #expect(message.body["time_to_live"] == "3600000")
        }
    }

    @Test("extra.channel_id is _notificationChannel, else mi.channel_id")
    func channel() async throws {
        try await withClient({ try client(["mi.channel_id": "default-channel"]) }) { mi in
            let named = try mi.message(
                for: VendorFixture.content(["alert": "B", "_notificationChannel": "news"]), timeToLive: nil
            ).get()
            #expect(named.body["extra.channel_id"] == "news")
            let unnamed = try mi.message(for: VendorFixture.content(["alert": "B"]), timeToLive: nil).get()
            #expect(unnamed.body["extra.channel_id"] == "default-channel")
        }
    }

    @Test("A title of 50 characters and a description of 128 are sent, CJK counted in characters")
    func withinLimits() async throws {
        try await withClient({ try client() }) { mi in
            let ascii = try VendorFixture.content([
                "title": .string(VendorFixture.text(50)), "alert": .string(VendorFixture.text(128)),
            ])
            #expect(VendorFixture.refusal(mi.message(for: ascii, timeToLive: nil)) == nil)
            let cjk = try VendorFixture.content([
                "title": .string(VendorFixture.text(50, "推")), "alert": .string(VendorFixture.text(128, "送")),
            ])
            #expect(VendorFixture.refusal(mi.message(for: cjk, timeToLive: nil)) == nil)
        }
    }

    @Test("A title over 50 characters or a description over 128 is ContentTooLong")
    func overLimits() async throws {
        try await withClient({ try client() }) { mi in
            let title = try VendorFixture.content(["title": .string(VendorFixture.text(51)), "alert": "B"])
            #expect(VendorFixture.refusal(mi.message(for: title, timeToLive: nil))?.description == "ContentTooLong")
            let body = try VendorFixture.content(["title": "T", "alert": .string(VendorFixture.text(129))])
            #expect(VendorFixture.refusal(mi.message(for: body, timeToLive: nil))?.description == "ContentTooLong")
        }
    }

    @Test("A regid with a comma cannot go into the comma-separated list")
    func commaTokens() async throws {
        try await withClient({ try client() }) { mi in
            #expect(mi.accepts(token: "abc123"))
            #expect(!mi.accepts(token: "a,b"))
        }
    }
}
