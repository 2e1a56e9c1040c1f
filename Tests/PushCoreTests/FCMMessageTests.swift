import PushCore
import Testing

/// Android payloads: FCM v1 messages with string-only data, notification unless silent, and TTL.
struct FCMMessageTests {
    func message(_ data: String, ttl: Int64? = nil) throws -> FCMMessage {
        try #require(try PushData(JSON.parse(data)).fcmMessage(token: "tok", notificationId: "nid1", timeToLive: ttl))
    }

    @Test func notificationWithTitleAlertAndStringifiedData() throws {
        let m = try message(
            #"{"alert":"Hello","title":"Hi","action":"com.avos.UPDATE","n":5,"o":{"k":[1]},"b":true}"#,
            ttl: 3600)
        #expect(
            m.message.encoded() == #"{"android":{"ttl":"3600s"},"data":{"_nid":"nid1","action":"com.avos.UPDATE","#
                + #""alert":"Hello","b":"true","n":"5","o":"{\"k\":[1]}","title":"Hi"},"#
                + #""notification":{"body":"Hello","title":"Hi"},"token":"tok"}"#)
        #expect(m.requestBody.encoded() == #"{"message":"# + m.message.encoded() + "}")
    }

    @Test func silentPushesAreDataOnly() throws {
        let m = try message(#"{"alert":"x","silent":true}"#)
        #expect(m.message.encoded() == #"{"data":{"_nid":"nid1","alert":"x","silent":"true"},"token":"tok"}"#)
        let loud = try message(#"{"alert":"x","silent":false}"#)
        #expect(loud.message["notification"] == ["body": "x"])
    }

    @Test func actionOnlyPushesShowNoNotification() throws {
        // The seed's custom-receiver example.
        let m = try message(#"{"action":"com.avos.UPDATE_STATUS","name":"avos cloud."}"#)
        #expect(
            m.message.encoded() == #"{"data":{"_nid":"nid1","action":"com.avos.UPDATE_STATUS","#
                + #""name":"avos cloud."},"token":"tok"}"#)
    }

    @Test func iosStyleAlertDictionaryStillShowsOnAndroid() throws {
        let m = try message(#"{"alert":{"title":"T","body":"B"}}"#)
        #expect(m.message["notification"] == ["title": "T", "body": "B"])
        #expect(m.message["data"]?["alert"] == #"{"body":"B","title":"T"}"#)
    }

    @Test func seedIOSExampleWithAnObjectActionStillBuildsForAndroid() throws {
        let m = try message(#"{"action":{"type":4},"alert":"hello, everyone"}"#)
        #expect(m.message["data"]?["action"] == #"{"type":4}"#)
        #expect(m.message["notification"] == ["body": "hello, everyone"])
    }

    @Test func timeToLiveIsClampedToFCMRange() throws {
        #expect(try message(#"{"alert":"x"}"#, ttl: -5).message["android"] == ["ttl": "0s"])
        #expect(try message(#"{"alert":"x"}"#, ttl: 99_999_999).message["android"] == ["ttl": "2419200s"])
        #expect(try message(#"{"alert":"x"}"#).message["android"] == nil)
    }

    @Test(arguments: [
        (#"{"silent":"yes"}"#, "silent must be a boolean, not string"),
        (#"{"alert":7}"#, "alert must be a string or an object, not number"),
        (#"{"title":["t"]}"#, "title must be a string, not array"),
        (#"{"alert":"x","from":"me"}"#, "data key 'from' is reserved by FCM"),
        (#"{"android":{"alert":"x","google.c":"1"}}"#, "data key 'google.c' is reserved by FCM"),
        (#"{"android":{"gcm_x":"1"},"ios":{"alert":"fine"}}"#, "data key 'gcm_x' is reserved by FCM"),
    ])
    func invalidAndroidContentIsCode1(data: String, message: String) throws {
        let json = try JSON.parse(data)
        #expect(throws: PushDataError(.invalidValue, message)) { try PushData(json) }
    }

    @Test func oversizedDataIsATypedError() throws {
        let json: JSON = ["android": ["alert": .string(String(repeating: "é", count: 1100))]]
        #expect(
            throws: PushDataError(
                .payloadTooLarge(size: 4490, limit: 4096),
                "FCM payload is 4490 bytes, over the 4096-byte limit")
        ) { try PushData(json) }
    }
}
