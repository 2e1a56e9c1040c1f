import PushCore
import Testing

/// Per-platform content selection, badge increment detection and `data` structure errors.
struct PushDataTests {
    @Test func sharedDataServesEveryPlatform() throws {
        let data = try PushData(["alert": "hi", "badge": "Increment"])
        #expect(data.content(for: .ios) == ["alert": "hi", "badge": "Increment"])
        #expect(data.content(for: .android) == ["alert": "hi", "badge": "Increment"])
        #expect(data.usesBadgeIncrement(for: .ios))
        #expect(!data.usesBadgeIncrement(for: .android))
    }

    @Test func perPlatformKeysSelectEachPlatformsContent() throws {
        let data = try PushData([
            "ios": ["alert": "apple", "badge": "Increment"],
            "android": ["alert": "robot", "title": "T"],
            "wp": ["alert": "phone"],
        ])
        #expect(data.content(for: .ios) == ["alert": "apple", "badge": "Increment"])
        #expect(data.content(for: .android) == ["alert": "robot", "title": "T"])
        #expect(data.usesBadgeIncrement(for: .ios))
        let ios = try #require(try data.apnsPayload(notificationId: "n", badge: 8))
        #expect(ios.body == #"{"_nid":"n","aps":{"alert":"apple","badge":8}}"#)
        let android = try #require(try data.fcmMessage(token: "t", notificationId: "n"))
        #expect(
            android.message.encoded()
                == #"{"data":{"_nid":"n","alert":"robot","title":"T"},"notification":{"body":"robot","title":"T"},"#
                + #""token":"t"}"#)
    }

    @Test func aPlatformWithoutItsKeyGetsTheRemainingSharedKeysOrNothing() throws {
        let mixed = try PushData(["ios": ["alert": "apple"], "alert": "everyone", "k": 1])
        #expect(mixed.content(for: .android) == ["alert": "everyone", "k": 1])
        let iosOnly = try PushData(["ios": ["alert": "apple", "badge": 1]])
        #expect(iosOnly.content(for: .android) == nil)
        #expect(try iosOnly.fcmMessage(token: "t", notificationId: "n") == nil)
        #expect(!iosOnly.usesBadgeIncrement(for: .ios))
        let androidOnly = try PushData(["android": ["alert": "robot"]])
        #expect(try androidOnly.apnsPayload(notificationId: "n") == nil)
        #expect(!androidOnly.usesBadgeIncrement(for: .ios))
    }

    @Test func incrementInsideAnExplicitApsCounts() throws {
        #expect(try PushData(["aps": ["badge": "Increment"]]).usesBadgeIncrement(for: .ios))
        #expect(try !PushData(["aps": ["badge": 1], "badge": "Increment"]).usesBadgeIncrement(for: .ios))
    }

    @Test(arguments: [
        ("\"hello\"", "data must be a JSON object, not string"),
        ("[1]", "data must be a JSON object, not array"),
        ("null", "data must be a JSON object, not null"),
        (#"{"ios":"x"}"#, "data.ios must be a JSON object, not string"),
        (#"{"android":[1]}"#, "data.android must be a JSON object, not array"),
        (#"{"wp":5}"#, "data.wp must be a JSON object, not number"),
    ])
    func malformedDataIsCode107(data: String, message: String) throws {
        let json = try JSON.parse(data)
        #expect(throws: PushDataError(.malformed, message)) { try PushData(json) }
        #expect(PushDataError(.malformed, message).code == 107)
        #expect(PushDataError(.malformed, message).description == "107: \(message)")
    }

    @Test func platformsAndTheirContentKeys() {
        #expect(PushPlatform(rawValue: "ios") == .ios)
        #expect(PushPlatform(rawValue: "android") == .android)
        #expect(PushPlatform(rawValue: "wp") == nil)
        #expect(PushPlatform.contentKeys == ["ios", "android", "wp"])
    }
}
