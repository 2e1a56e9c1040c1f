import PushCore
import Testing

@Suite struct WNSPayloadTests {
    private func payload(_ data: JSON, id: String = "nid1") throws -> WNSPayload? {
        try PushData(data).wnsPayload(notificationId: id)
    }

    private func text(_ payload: WNSPayload?) -> String {
        String(decoding: payload?.body ?? [], as: UTF8.self)
    }

    @Test func toastFromTheWpContentWithLaunchParameter() throws {
        let wns = try payload([
            "wp": ["title": "Hello", "alert": "World", "wp-param": "/Page.xaml?id=1"], "ios": ["alert": "other"],
        ])
        #expect(wns?.kind == .toast)
        #expect(wns?.kind.header == "wns/toast")
        #expect(wns?.kind.contentType == "text/xml")
        #expect(
            text(wns)
                == #"<toast launch="/Page.xaml?id=1"><visual><binding template="ToastGeneric"><text>Hello</text>"#
                + #"<text>World</text></binding></visual></toast>"#)
    }

    @Test func markupAndControlCharactersAreEscaped() throws {
        let wns = try payload(["alert": "a<b & \"c\" 'd' >\u{1}e", "wp-param": "x=\"1\"&y=<2>"])
        #expect(
            text(wns)
                == #"<toast launch="x=&quot;1&quot;&amp;y=&lt;2&gt;"><visual><binding template="ToastGeneric">"#
                + #"<text>a&lt;b &amp; &quot;c&quot; &apos;d&apos; &gt;e</text></binding></visual></toast>"#)
        #expect(WNSPayload.escaped("tab\there\nü😀") == "tab\there\nü😀")
    }

    @Test func sharedDataIsAToastAndAnIOSAlertDictionaryShows() throws {
        let wns = try payload(["alert": ["title": "T", "body": "B"], "badge": "Increment", "type": "promo"])
        #expect(wns?.kind == .toast)
        #expect(text(wns).contains("<text>T</text><text>B</text>"))
        #expect(!text(wns).contains("launch"))
    }

    @Test func withoutTextItIsARawNotificationCarryingTheNotificationId() throws {
        let wns = try payload(["content-available": 1, "k": "v"], id: "abc")
        #expect(wns?.kind == .raw)
        #expect(wns?.kind.contentType == "application/octet-stream")
        let body = try JSON.parse(wns?.body ?? [])
        #expect(body["_nid"] == "abc")
        #expect(body["k"] == "v")
    }

    @Test func explicitTypesBadgeTileRawAndXML() throws {
        let badge = try payload(["wp": ["type": "wns/badge", "badge": 7]])
        #expect(badge?.kind == .badge)
        #expect(text(badge) == #"<badge value="7"/>"#)
        #expect(text(try payload(["wp": ["type": "badge", "badge": "attention"]])) == #"<badge value="attention"/>"#)
        let tile = try payload(["wp": ["type": "tile", "title": "T"]])
        #expect(text(tile) == #"<tile><visual><binding template="TileWide"><text>T</text></binding></visual></tile>"#)
        let raw = try payload(["wp": ["type": "raw", "alert": "x"]])
        #expect(raw?.kind == .raw)
        let xml = try payload(["wp": ["type": "tile", "xml": "<tile><visual/></tile>"]])
        #expect(text(xml) == "<tile><visual/></tile>")
    }

    @Test func noWindowsContentMeansNoPayload() throws {
        #expect(try payload(["ios": ["alert": "only iOS"]]) == nil)
    }

    @Test(arguments: [
        (["wp": ["type": "popup", "alert": "x"]] as JSON, "wp.type must be toast, tile, badge or raw, not popup"),
        (["wp": ["title": 5]] as JSON, "wp.title must be a string, not number"),
        (["wp": ["type": "badge"]] as JSON, "a Windows badge needs wp.badge: a count of at least 0 or a glyph name"),
        (["wp": ["type": "toast"]] as JSON, "a Windows toast needs a title or an alert"),
    ])
    func invalidWindowsContentIsRefusedWhenThePushIsRequested(data: JSON, message: String) {
        #expect(throws: PushDataError(.invalidValue, message)) { try PushData(data) }
    }

    @Test func payloadsOverFiveKilobytesAreRefused() {
        let alert = String(repeating: "<", count: 1300)  // 5,200 bytes once escaped
        #expect(throws: PushDataError.self) { try PushData(["wp": ["alert": .string(alert)]]) }
        #expect(throws: Never.self) { try PushData(["wp": ["alert": .string(String(repeating: "a", count: 4000))]]) }
    }

    @Test func platformsAndDeviceTypes() {
        #expect(PushPlatform(deviceType: "wp") == .windows)
        #expect(PushPlatform(deviceType: "windows") == .windows)
        #expect(PushPlatform(deviceType: "WP") == nil)
        #expect(PushPlatform.windows.contentKey == "wp")
    }

    @Test func windowsInstallationsNeedAnInstallationIdAndAnHTTPSChannel() throws {
        let uri = "https://db5.notify.windows.com/?token=AwYAAAB%2b"
        let created = try InstallationUpdate.apply(
            body: ["deviceType": "wp", "installationId": "w1", "subscriptionUri": .string(uri)], to: [:],
            isCreate: true)
        #expect(created.fields["deviceType"] == "windows")
        #expect(created.set["deviceType"] == "windows")
        #expect(throws: LeanError.missingField("subscriptionUri is required for a windows installation.")) {
            try InstallationUpdate.apply(
                body: ["deviceType": "windows", "installationId": "w1"], to: [:], isCreate: true)
        }
        #expect(throws: LeanError.missingField("installationId is required for a windows installation.")) {
            try InstallationUpdate.apply(
                body: ["deviceType": "windows", "subscriptionUri": .string(uri)], to: [:], isCreate: true)
        }
        let bad = LeanError.invalidParameter(
            "Invalid subscriptionUri: a WNS channel URI is an https URL with a plain host name (no userinfo, "
                + "escapes, fragment or spaces).")
        for wrong in [
            "http://db5.notify.windows.com/?token=1", "not a url", "https://", "https://a b/", "",
            "https://u@db5.notify.windows.com/", "https://db5.notify.windows.com./",
            "https://%64b5.notify.windows.com/",
            "https://db5.notify.windows.com/#x", "https://db5.notify.windows.com\\@127.0.0.1/",
        ] {
            #expect(throws: bad, "\(wrong)") {
                try InstallationUpdate.apply(
                    body: ["deviceType": "windows", "installationId": "w1", "subscriptionUri": .string(wrong)],
                    to: [:], isCreate: true)
            }
            #expect(throws: bad, "\(wrong)") {
                try InstallationUpdate.apply(
                    body: ["subscriptionUri": .string(wrong)], to: created.fields, isCreate: false)
            }
        }
        // Sent again as "wp" on an upsert, the type is unchanged, not an attempt to change it.
        let again = try InstallationUpdate.apply(body: ["deviceType": "wp"], to: created.fields, isCreate: false)
        #expect(again.set.isEmpty)
    }
}
