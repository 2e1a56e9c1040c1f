import PushCore
import Testing

@testable import Delivery

/// The HMS `message` without its tokens (docs/vendors.md): the LeanCloud JSON as `data`, a notification
/// whose click opens the LeanCloud module with that JSON, none for a pass-through push, at most 4096 bytes.
@Suite("HMS messages")
struct HMSMessageTests {
    static let credentials = ["hms.app_id": "10086", "hms.client_secret": "secret"]
    /// `{"_nid":"n1","alert":"B","title":"T"}` percent-encoded.
    static let encodedJSON = "%7B%22_nid%22%3A%22n1%22%2C%22alert%22%3A%22B%22%2C%22title%22%3A%22T%22%7D"

    private func client(_ extra: [String: String] = [:]) throws -> HMSClient {
        try HMSClient(
            settings: VendorFixture.settings("hms", Self.credentials.merging(extra) { $1 }), logger: nil)
    }

    @Test("A notification shows title and body and its click carries the LeanCloud JSON")
    func notification() async throws {
        try await withClient({ try client() }) { hms in
            let content = try VendorFixture.content(["title": "T", "alert": "B"])
            let message = try hms.message(for: content, timeToLive: nil).get()
            let intent =
                "intent://cn.leancloud.push/notify_detail#Intent;scheme=lcpushscheme;launchFlags=0x10000000;"
                + "S.content=\(Self.encodedJSON);end"
            #expect(
                message.body == [
                    "data": #"{"_nid":"n1","alert":"B","title":"T"}"#,
                    "android": [
                        "notification": [
                            "title": "T", "body": "B", "click_action": ["type": 1, "intent": .string(intent)],
                        ]
                    ],
                ])
            #expect(!message.silent)
        }
    }

    @Test("hms.intent_host is the host of the click intent")
    func intentHost() async throws {
        try await withClient({ try client(["hms.intent_host": "push.example.com"]) }) { hms in
            let message = try hms.message(for: VendorFixture.content(["alert": "B"]), timeToLive: nil).get()
            let intent = message.body["android"]?["notification"]?["click_action"]?["intent"]?.stringValue
            #expect(intent?.hasPrefix("intent://push.example.com/notify_detail#Intent;scheme=lcpushscheme;") == true)
        }
    }

    @Test("The expiration is the ttl in seconds and _notificationChannel the channel_id")
    func ttlAndChannel() async throws {
        try await withClient({ try client() }) { hms in
            let content = try VendorFixture.content(["alert": "B", "_notificationChannel": "news"])
            let message = try hms.message(for: content, timeToLive: 3600).get()
            #expect(message.body["android"]?["ttl"] == "3600s")
            #expect(message.body["android"]?["notification"]?["channel_id"] == "news")
        }
    }

    @Test("A pass-through push has no android.notification, only the data")
    func passThrough() async throws {
        try await withClient({ try client() }) { hms in
            let content = try VendorFixture.content(["alert": "B", "silent": true])
            let message = try hms.message(for: content, timeToLive: nil).get()
            #expect(message.body == ["data": #"{"_nid":"n1","alert":"B","silent":true}"#, "android": [:]])
            #expect(message.silent)
        }
    }

    @Test("A push's target_user_type and category go into android, its message subtree over the message")
    func nativeOptions() async throws {
        try await withClient({ try client() }) { hms in
            let content = try VendorFixture.content(
                ["alert": "B"],
                options: [
                    "target_user_type": 1, "category": "IM", "message": ["android": ["urgency": "HIGH"]],
                ])
            let android = try hms.message(for: content, timeToLive: nil).get().body["android"]
            #expect(android?["target_user_type"] == 1)
            #expect(android?["category"] == "IM")
            #expect(android?["urgency"] == "HIGH")
            #expect(android?["notification"]?["body"] == "B")
        }
    }

    @Test("HMS states no title or body limit of its own")
    func noTitleLimit() async throws {
        try await withClient({ try client() }) { hms in
            let content = try VendorFixture.content(["title": .string(VendorFixture.text(300)), "alert": "B"])
            #expect(VendorFixture.refusal(hms.message(for: content, timeToLive: nil)) == nil)
        }
    }

    @Test("A message without its tokens over 4096 bytes is ContentTooLong, one of 4096 is sent")
    func sizeLimit() async throws {
        // Silent: `{"android":{},"data":"{\"_nid\":\"n1\",\"alert\":\"<N>\",\"silent\":true}"}` is N + 72 bytes.
        func content(_ n: Int) throws -> VendorContent {
            try VendorFixture.content(["alert": .string(VendorFixture.text(n)), "silent": true])
        }
        try await withClient({ try client() }) { hms in
            let fits = try hms.message(for: content(4024), timeToLive: nil).get()
            #expect(fits.body.encoded().utf8.count == 4096)
            let refusal = VendorFixture.refusal(hms.message(for: try content(4025), timeToLive: nil))
            #expect(refusal?.description == "ContentTooLong")
        }
    }
}
