import PushCore
import Testing

@testable import Delivery

/// The Honor send body without its tokens (docs/vendors.md): HMS's shape in camelCase, no notification for a
/// pass-through push, at most 4096 bytes.
@Suite("Honor messages")
struct HonorMessageTests {
    static let credentials = ["honor.app_id": "104", "honor.client_id": "cid", "honor.client_secret": "secret"]

    private func client() throws -> HonorClient {
        try HonorClient(settings: VendorFixture.settings("honor", Self.credentials), logger: nil)
    }

    @Test("A notification shows title and body, its clickAction the HMS intent with the LeanCloud JSON")
    func notification() async throws {
        try await withClient(client) { honor in
            let content = try VendorFixture.content(["title": "T", "alert": "B"])
            let message = try honor.message(for: content, timeToLive: 60).get()
            let intent =
                "intent://cn.leancloud.push/notify_detail#Intent;scheme=lcpushscheme;launchFlags=0x10000000;"
                + "S.content=\(HMSMessageTests.encodedJSON);end"
            #expect(
                message.body == [
                    "data": #"{"_nid":"n1","alert":"B","title":"T"}"#,
                    "android": [
                        "ttl": "60s",
                        "notification": [
                            "title": "T", "body": "B", "clickAction": ["type": 1, "intent": .string(intent)],
                        ],
                    ],
                ])
        }
    }

    @Test("A push's targetUserType goes into android")
    func targetUserType() async throws {
        try await withClient(client) { honor in
            let content = try VendorFixture.content(["alert": "B"], options: ["targetUserType": 1])
            #expect(try honor.message(for: content, timeToLive: nil).get().body["android"]?["targetUserType"] == 1)
        }
    }

    @Test("A pass-through push has no android.notification")
    func passThrough() async throws {
        try await withClient(client) { honor in
            let message = try honor.message(
                for: VendorFixture.content(["alert": "B", "silent": true]), timeToLive: nil
            )
            .get()
            #expect(message.body["android"] == [:])
            #expect(message.silent)
        }
    }

    @Test("A body over 4096 bytes without its tokens is ContentTooLong")
    func sizeLimit() async throws {
        // Silent: `{"android":{},"data":"{\"_nid\":\"n1\",\"alert\":\"<N>\",\"silent\":true}"}` is N + 72 bytes.
        func content(_ n: Int) throws -> VendorContent {
            try VendorFixture.content(["alert": .string(VendorFixture.text(n)), "silent": true])
        }
        try await withClient(client) { honor in
            #expect(VendorFixture.refusal(honor.message(for: try content(4024), timeToLive: nil)) == nil)
            let refusal = VendorFixture.refusal(honor.message(for: try content(4025), timeToLive: nil))
            #expect(refusal?.description == "ContentTooLong")
        }
    }
}
