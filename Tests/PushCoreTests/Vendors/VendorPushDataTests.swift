import Testing

@testable import PushCore

/// A vendor's content (SPEC §12.3): the top-level `data` without the platform keys, shallowly overridden by
/// `data.<vendor>`'s LeanCloud keys; its vendor-native keys go to the vendor's request instead.
@Suite("Vendor content from a push's data")
struct VendorPushDataTests {
    @Test("A vendor's content is the shared keys with its own LeanCloud keys over them")
    func sharedKeysOverridden() throws {
        let data = try PushData([
            "alert": "all", "title": "Shared", "k": 1, "hms": ["alert": "huawei", "extra": "x"],
            "ios": ["alert": "apple"],
        ])
        #expect(data.content(for: .vendor(.hms)) == ["alert": "huawei", "title": "Shared", "k": 1, "extra": "x"])
    }

    @Test(
        "Every vendor reads its own data key, mi-intl the mi key",
        arguments: [
            (AndroidVendor.hms, "hms"), (.mi, "mi"), (.miIntl, "mi"), (.oppo, "oppo"), (.vivo, "vivo"), (.mz, "mz"),
            (.honor, "honor"),
        ])
    func ownKeyPerVendor(vendor: AndroidVendor, key: String) throws {
        let data = try PushData(["alert": "all", "title": "T", key: ["alert": "own"]])
        #expect(data.content(for: .vendor(vendor)) == ["alert": "own", "title": "T"])
        let content = try #require(try data.vendorContent(for: vendor, notificationId: "n1"))
        #expect(content.body == "own")
        #expect(content.title == "T")
    }

    @Test("A vendor without its own key gets the shared keys, never another vendor's or the android key")
    func otherKeysStayOut() throws {
        let data = try PushData([
            "alert": "all", "mi": ["alert": "xiaomi"], "android": ["alert": "robot"], "fcm": ["alert": "google"],
        ])
        #expect(data.content(for: .vendor(.oppo)) == ["alert": "all"])
        #expect(data.content(for: .vendor(.hms)) == ["alert": "all"])
        #expect(data.content(for: .apns) == ["alert": "all"])
    }

    @Test("A push with nothing shared and no key for the vendor has no content for it")
    func nothingForTheVendor() throws {
        let data = try PushData(["ios": ["alert": "apple"], "hms": ["alert": "huawei"]])
        #expect(data.content(for: .vendor(.vivo)) == nil)
        #expect(try data.vendorContent(for: .vivo, notificationId: "n1") == nil)
        #expect(data.content(for: .vendor(.hms)) == ["alert": "huawei"])
    }

    @Test(
        "Vendor-native keys go to the vendor's options, not to the device",
        arguments: [
            (AndroidVendor.hms, "hms", "target_user_type"), (.hms, "hms", "category"), (.hms, "hms", "message"),
            (.honor, "honor", "targetUserType"), (.mi, "mi", "notify_type"), (.miIntl, "mi", "channel_id"),
            (.oppo, "oppo", "channel_id"), (.vivo, "vivo", "pushMode"), (.vivo, "vivo", "classification"),
            (.mz, "mz", "noticeBarType"), (.fcm, "fcm", "priority"),
        ])
    func nativeKeysToOptions(vendor: AndroidVendor, key: String, native: String) throws {
        let data = try PushData([
            "alert": "all", key: ["title": "T", native: ["k": 1]],
        ])
        let content = try #require(try data.vendorContent(for: vendor, notificationId: "n1"))
        #expect(content.json == ["alert": "all", "title": "T", "_nid": "n1"])
        #expect(content.options.values == [native: ["k": 1]])
        #expect(data.vendorOptions(for: vendor)[native] == ["k": 1])
    }

    @Test("Custom keys in a vendor's key are content, delivered with the LeanCloud keys")
    func customKeysAreContent() throws {
        let data = try PushData(["vivo": ["alert": "hi", "orderId": "42"]])
        let content = try #require(try data.vendorContent(for: .vivo, notificationId: "n1"))
        #expect(content.json == ["alert": "hi", "orderId": "42", "_nid": "n1"])
        #expect(content.customKeys == ["orderId": "42"])
        #expect(content.options.values.isEmpty)
    }

    @Test("Plain FCM devices take data.fcm over data.android, the own channel keeps data.android")
    func fcmOverAndroid() throws {
        let data = try PushData(["k": 1, "android": ["alert": "robot"], "fcm": ["alert": "google"]])
        #expect(data.content(for: .fcm(leanCloudShape: false)) == ["k": 1, "alert": "google"])
        #expect(data.content(for: .channel(.android)) == ["alert": "robot"])
        let message = try #require(try data.fcmMessage(token: "t", notificationId: "n1"))
        #expect(message.message["notification"] == ["body": "google"])
    }

    @Test("Plain FCM devices take data.android when the push has no data.fcm")
    func androidWithoutFCM() throws {
        let data = try PushData(["alert": "all", "android": ["alert": "robot"]])
        #expect(data.content(for: .fcm(leanCloudShape: false)) == ["alert": "robot"])
    }

    @Test("vendor: fcm devices take data.fcm over the shared keys")
    func leanCloudFCM() throws {
        let data = try PushData(["alert": "all", "title": "T", "fcm": ["alert": "google"]])
        let content = try #require(try data.vendorContent(for: .fcm, notificationId: "n1"))
        #expect(content.json == ["alert": "google", "title": "T", "_nid": "n1"])
    }

    @Test("An unknown vendor's devices get no content")
    func unknownVendor() throws {
        #expect(try PushData(["alert": "all"]).content(for: .unknownVendor("nokia")) == nil)
    }

    @Test("A vendor key that is not an object is malformed data")
    func vendorKeyNotAnObject() throws {
        #expect(throws: PushDataError(.malformed, "data.hms must be a JSON object, not string")) {
            try PushData(["hms": "x"])
        }
    }

    @Test("A vendor's content is validated when the push is requested")
    func vendorContentValidated() throws {
        #expect(throws: PushDataError(.invalidValue, "silent must be a boolean, not string")) {
            try PushData(["mz": ["alert": "x", "silent": "yes"]])
        }
    }
}
