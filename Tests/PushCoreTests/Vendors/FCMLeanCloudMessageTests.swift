import Testing

@testable import PushCore

/// FCM messages: `vendor: fcm` devices get the shape LeanCloud's FCM module reads (`notification` +
/// `data.payload`, docs/vendors.md), and `_notificationChannel` becomes `android.notification.channel_id`.
@Suite("FCM messages for the LeanCloud FCM module")
struct FCMLeanCloudMessageTests {
    private func content(_ json: [String: JSON], options: [String: JSON] = [:]) throws -> VendorContent {
        try VendorContent(json, notificationId: "n1", options: VendorOptions(options))
    }

    @Test("vendor: fcm gets notification title and body and the LeanCloud JSON as data.payload")
    func leanCloudShape() throws {
        let c = try content(["title": "T", "alert": "B", "_notificationChannel": "news", "k": "v"])
        let message = try FCMMessage(leanCloud: c, token: "tok", timeToLive: 60)
        let payload = #"{"_nid":"n1","_notificationChannel":"news","alert":"B","k":"v","title":"T"}"#
        #expect(
            message.message == [
                "token": "tok", "notification": ["title": "T", "body": "B"], "data": ["payload": .string(payload)],
                "android": ["ttl": "60s", "notification": ["channel_id": "news"]],
            ])
    }

    @Test("Without an expiration or a channel the message has no android member")
    func noAndroid() throws {
        let message = try FCMMessage(leanCloud: content(["title": "T", "alert": "B"]), token: "tok", timeToLive: nil)
        #expect(message.message["android"] == nil)
        #expect(message.message["data"] == ["payload": #"{"_nid":"n1","alert":"B","title":"T"}"#])
    }

    @Test("A data.fcm push builds the LeanCloud shape from the merged content")
    func fromPushData() throws {
        let data = try PushData(["alert": "all", "fcm": ["title": "G"]])
        let c = try #require(try data.vendorContent(for: .fcm, notificationId: "n1"))
        let message = try FCMMessage(leanCloud: c, token: "tok", timeToLive: nil)
        #expect(message.message["notification"] == ["title": "G", "body": "all"])
        #expect(message.message["data"] == ["payload": #"{"_nid":"n1","alert":"all","title":"G"}"#])
    }

    @Test("Plain FCM puts _notificationChannel into android.notification.channel_id and keeps it in data")
    func plainChannel() throws {
        let message = try FCMMessage(
            content: ["alert": "B", "_notificationChannel": "news"], token: "tok", notificationId: "n1",
            timeToLive: nil)
        #expect(message.message["android"] == ["notification": ["channel_id": "news"]])
        #expect(message.message["data"]?["_notificationChannel"] == "news")
    }

    @Test("A silent plain FCM message shows nothing, so it names no channel")
    func silentNoChannel() throws {
        let message = try FCMMessage(
            content: ["alert": "B", "silent": true, "_notificationChannel": "news"], token: "tok",
            notificationId: "n1", timeToLive: nil)
        #expect(message.message["notification"] == nil)
        #expect(message.message["android"] == nil)
    }
}
