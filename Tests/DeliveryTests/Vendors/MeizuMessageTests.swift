import PushCore
import Testing

@testable import Delivery

/// Meizu's `messageJson` (docs/vendors.md): title ≤ 32 and content ≤ 100 characters, the LeanCloud JSON as the
/// click's `content` parameter, the validity in hours 1…72, no pass-through.
@Suite("Meizu messages")
struct MeizuMessageTests {
    private func client() throws -> MeizuClient {
        try MeizuClient(
            settings: VendorFixture.settings("mz", ["mz.app_id": "100", "mz.app_secret": "secret"]), logger: nil)
    }

    @Test("A notification bar message whose click carries the LeanCloud JSON")
    func notification() async throws {
        try await withClient(client) { mz in
            let message = try mz.message(for: VendorFixture.content(["title": "T", "alert": "B"]), timeToLive: 7200)
                .get()
            #expect(
                message.body == [
                    "noticeBarInfo": ["noticeBarType": 0, "title": "T", "content": "B"],
                    "clickTypeInfo": [
                        "clickType": 0, "parameters": ["content": #"{"_nid":"n1","alert":"B","title":"T"}"#],
                    ],
                    "pushTimeInfo": ["offLine": 1, "validTime": 2],
                ])
        }
    }

    @Test("validTime is the expiration in hours, between 1 and 72")
    func validTime() async throws {
        try await withClient(client) { mz in
            let content = try VendorFixture.content(["alert": "B"])
            func hours(_ seconds: Int64) throws -> JSON? {
                try mz.message(for: content, timeToLive: seconds).get().body["pushTimeInfo"]?["validTime"]
            }
            #expect(try hours(1) == 1)
            #expect(try hours(3600) == 1)
            #expect(try hours(10 * 86400) == 72)
        }
    }

    @Test("A silent push is PassThroughUnsupported")
    func passThrough() async throws {
        try await withClient(client) { mz in
            let content = try VendorFixture.content(["alert": "B", "silent": true])
            #expect(VendorFixture.refusal(mz.message(for: content, timeToLive: nil)) == .passThroughUnsupported)
        }
    }

    @Test("A title of 32 and a content of 100 characters are sent, 33 and 101 are ContentTooLong")
    func limits() async throws {
        try await withClient(client) { mz in
            let fits = try VendorFixture.content([
                "title": .string(VendorFixture.text(32, "魅")), "alert": .string(VendorFixture.text(100)),
            ])
            #expect(VendorFixture.refusal(mz.message(for: fits, timeToLive: nil)) == nil)
            let title = try VendorFixture.content(["title": .string(VendorFixture.text(33)), "alert": "B"])
            #expect(VendorFixture.refusal(mz.message(for: title, timeToLive: nil))?.description == "ContentTooLong")
            let body = try VendorFixture.content(["title": "T", "alert": .string(VendorFixture.text(101))])
            #expect(VendorFixture.refusal(mz.message(for: body, timeToLive: nil))?.description == "ContentTooLong")
        }
    }

    @Test("A pushId with a comma cannot go into the comma-separated list")
    func commaTokens() async throws {
        try await withClient(client) { mz in
            #expect(mz.accepts(token: "ULY6c596e6"))
            #expect(!mz.accepts(token: "a,b"))
        }
    }
}
