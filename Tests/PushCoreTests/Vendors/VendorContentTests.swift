import Testing

@testable import PushCore

/// What a vendor's device gets read out of its LeanCloud content (SPEC §12.3): `title`/`alert` as the
/// vendor's title and body, `silent`, `_notificationChannel`, the JSON with `_nid`.
@Suite("Vendor content")
struct VendorContentTests {
    private func content(_ json: [String: JSON], options: [String: JSON] = [:]) throws -> VendorContent {
        try VendorContent(json, notificationId: "n1", options: VendorOptions(options))
    }

    @Test("title is the vendor's title and a string alert its body")
    func titleAndBody() throws {
        let c = try content(["title": "T", "alert": "B"])
        #expect(c.title == "T")
        #expect(c.body == "B")
        #expect(!c.silent)
        #expect(c.notificationChannel == nil)
    }

    @Test("An alert object gives its title and body, a top-level title wins over the alert's")
    func alertObject() throws {
        let c = try content(["alert": ["title": "AT", "body": "AB"]])
        #expect(c.title == "AT")
        #expect(c.body == "AB")
        #expect(try content(["title": "T", "alert": ["title": "AT", "body": "AB"]]).title == "T")
    }

    @Test("silent true is a pass-through message, a silent that is not a boolean is refused")
    func silent() throws {
        #expect(try content(["alert": "B", "silent": true]).silent)
        #expect(try !content(["alert": "B", "silent": false]).silent)
        #expect(throws: PushDataError(.invalidValue, "silent must be a boolean, not number")) {
            try content(["silent": 1])
        }
    }

    @Test("An alert or title of the wrong type is refused")
    func wrongTypes() {
        #expect(throws: PushDataError(.invalidValue, "alert must be a string or an object, not number")) {
            try content(["alert": 5])
        }
        #expect(throws: PushDataError(.invalidValue, "title must be a string, not array")) {
            try content(["title": [1]])
        }
    }

    @Test("_notificationChannel is the vendor's channel id and stays in the JSON")
    func notificationChannel() throws {
        let c = try content(["alert": "B", "_notificationChannel": "news"])
        #expect(c.notificationChannel == "news")
        #expect(c.json["_notificationChannel"] == "news")
    }

    @Test("The JSON carries the push's id as _nid, and its text is that JSON")
    func jsonWithNid() throws {
        let c = try content(["alert": "B", "k": ["x": 1]])
        #expect(c.json == ["alert": "B", "k": ["x": 1], "_nid": "n1"])
        #expect(c.text == #"{"_nid":"n1","alert":"B","k":{"x":1}}"#)
    }

    @Test("Custom keys are everything but LeanCloud's own keys")
    func customKeys() throws {
        let c = try content([
            "alert": "B", "title": "T", "silent": false, "sound": "s", "badge": 1, "_notificationChannel": "c",
            "action": "com.x", "k": 2,
        ])
        #expect(c.customKeys == ["action": "com.x", "k": 2])
    }

    @Test("titled gives a content without a title, or an empty one, the fallback title")
    func titledFallback() throws {
        #expect(try content(["alert": "B"]).titled("My App").title == "My App")
        #expect(try content(["alert": "B", "title": ""]).titled("My App").title == "My App")
        #expect(try content(["alert": "B", "title": "T"]).titled("My App").title == "T")
    }

    @Test("titled leaves the LeanCloud JSON as the push gave it")
    func titledKeepsJSON() throws {
        let c = try content(["alert": "B"])
        let titled = c.titled("My App")
        #expect(titled.json == ["alert": "B", "_nid": "n1"])
        #expect(titled.text == c.text)
        #expect(titled.body == "B")
    }

    @Test("The options are kept for the vendor's request")
    func options() throws {
        #expect(try content(["alert": "B"], options: ["pushMode": 1]).options["pushMode"] == 1)
    }
}
