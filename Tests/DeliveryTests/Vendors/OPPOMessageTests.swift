import PushCore
import Testing

@testable import Delivery

/// OPPO's notification (docs/vendors.md): title and content ≤ 50 characters, the LeanCloud JSON as
/// `action_parameters`, no pass-through.
@Suite("OPPO messages")
struct OPPOMessageTests {
    private func client() throws -> OPPOClient {
        try OPPOClient(
            settings: VendorFixture.settings("oppo", ["oppo.app_key": "key", "oppo.master_secret": "secret"]),
            logger: nil)
    }

    @Test("A notification: title, content, click_action_type 0 and the LeanCloud JSON as action_parameters")
    func notification() async throws {
        try await withClient(client) { oppo in
            let message = try oppo.message(for: VendorFixture.content(["title": "T", "alert": "B"]), timeToLive: nil)
                .get()
            #expect(
                message.body == [
                    "title": "T", "content": "B", "click_action_type": 0,
                    "action_parameters": #"{"_nid":"n1","alert":"B","title":"T"}"#,
                ])
        }
    }

    @Test("_notificationChannel is channel_id and the expiration off_line_ttl")
    func channelAndTTL() async throws {
        try await withClient(client) { oppo in
            let content = try VendorFixture.content(["alert": "B", "_notificationChannel": "news"])
            let message = try oppo.message(for: content, timeToLive: 7200).get()
            #expect(message.body["channel_id"] == "news")
            #expect(message.body["off_line_ttl"] == 7200)
        }
    }

    @Test("A silent push is PassThroughUnsupported")
    func passThrough() async throws {
        try await withClient(client) { oppo in
            let content = try VendorFixture.content(["alert": "B", "silent": true])
            #expect(VendorFixture.refusal(oppo.message(for: content, timeToLive: nil)) == .passThroughUnsupported)
        }
    }

    @Test("A title and a content of 50 characters are sent, 51 are ContentTooLong")
    func limits() async throws {
        try await withClient(client) { oppo in
            let fits = try VendorFixture.content([
                "title": .string(VendorFixture.text(50)), "alert": .string(VendorFixture.text(50, "送")),
            ])
            #expect(VendorFixture.refusal(oppo.message(for: fits, timeToLive: nil)) == nil)
            let title = try VendorFixture.content(["title": .string(VendorFixture.text(51)), "alert": "B"])
            #expect(VendorFixture.refusal(oppo.message(for: title, timeToLive: nil))?.description == "ContentTooLong")
            let body = try VendorFixture.content(["title": "T", "alert": .string(VendorFixture.text(51))])
            #expect(VendorFixture.refusal(oppo.message(for: body, timeToLive: nil))?.description == "ContentTooLong")
        }
    }
}
