import PushCore
import Testing

@testable import Delivery

/// vivo's message (docs/vendors.md): notifyType 4, skipType 1, title ≤ 40 and content ≤ 100 characters, the
/// custom keys in `clientCustomMap`, no pass-through.
@Suite("vivo messages")
struct VivoMessageTests {
    static let credentials = ["vivo.app_id": "1234", "vivo.app_key": "key", "vivo.app_secret": "secret"]

    private func client() throws -> VivoClient {
        try VivoClient(settings: VendorFixture.settings("vivo", Self.credentials), logger: nil)
    }

    @Test("A notification: the integer appId, notifyType 4, title, content, skipType 1, custom keys with _nid")
    func notification() async throws {
        try await withClient(client) { vivo in
            let content = try VendorFixture.content(["title": "T", "alert": "B", "orderId": "42", "n": 5])
            let body = try vivo.message(for: content, timeToLive: 3600).get().body
            #expect(body["appId"] == 1234)
            #expect(body["notifyType"] == 4)
            #expect(body["title"] == "T")
            #expect(body["content"] == "B")
            #expect(body["skipType"] == 1)
            // Every payload carries `_nid` so that opens can be attributed (SPEC §4.4).
            #expect(body["clientCustomMap"] == ["orderId": "42", "n": "5", "_nid": "n1"])
            #expect(body["timeToLive"] == 3600)
            #expect(body["regId"] == nil)
        }
    }

    @Test("A push's pushMode goes into the request")
    func pushMode() async throws {
        try await withClient(client) { vivo in
            let content = try VendorFixture.content(["alert": "B"], options: ["pushMode": 1])
            #expect(try vivo.message(for: content, timeToLive: nil).get().body["pushMode"] == 1)
        }
    }

    @Test("A silent push is PassThroughUnsupported")
    func passThrough() async throws {
        try await withClient(client) { vivo in
            let content = try VendorFixture.content(["alert": "B", "silent": true])
            #expect(VendorFixture.refusal(vivo.message(for: content, timeToLive: nil)) == .passThroughUnsupported)
        }
    }

    @Test("A title of 40 and a content of 100 characters are sent, 41 and 101 are ContentTooLong")
    func limits() async throws {
        try await withClient(client) { vivo in
            let fits = try VendorFixture.content([
                "title": .string(VendorFixture.text(40, "推")), "alert": .string(VendorFixture.text(100)),
            ])
            #expect(VendorFixture.refusal(vivo.message(for: fits, timeToLive: nil)) == nil)
            let title = try VendorFixture.content(["title": .string(VendorFixture.text(41)), "alert": "B"])
            #expect(VendorFixture.refusal(vivo.message(for: title, timeToLive: nil))?.description == "ContentTooLong")
            let body = try VendorFixture.content(["title": "T", "alert": .string(VendorFixture.text(101))])
            #expect(VendorFixture.refusal(vivo.message(for: body, timeToLive: nil))?.description == "ContentTooLong")
        }
    }

    @Test("A vivo.app_id that is not an integer cannot make a client")
    func nonIntegerAppId() {
        let settings = VendorFixture.settings(
            "vivo", Self.credentials.merging(["vivo.app_id": "abc"]) { $1 })
        #expect(throws: DeliverySetupError.self) { try VivoClient(settings: settings, logger: nil) }
    }
}
