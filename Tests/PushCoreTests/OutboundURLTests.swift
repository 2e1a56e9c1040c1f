import PushCore
import Testing

/// SPEC §12.7: what a client-supplied channel URI may be, and where it may lead.
struct OutboundURLTests {
    @Test(arguments: [
        ("https://db5.notify.windows.com/?token=AwYAAAB%2bYuQ", "db5.notify.windows.com", 443),
        ("HTTPS://DB5.Notify.Windows.COM:443/x", "db5.notify.windows.com", 443),
        ("https://127.0.0.1:8443/wns/chan-1", "127.0.0.1", 8443),
        ("https://[::1]:9000/wns/a", "[::1]", 9000),
    ])
    func plainURLsAreRead(uri: String, host: String, port: Int) throws {
        let url = try #require(HTTPSURL(uri))
        #expect(url.host == host)
        #expect(url.port == port)
        #expect(url.text == uri)
    }

    /// Each of these is read differently by some URL parser, or is not a plain https URL at all.
    @Test(arguments: [
        "http://db5.notify.windows.com/", "https://", "https:///path", "db5.notify.windows.com/x",
        "https://u@db5.notify.windows.com/", "https://u:p@db5.notify.windows.com/",
        "https://db5.notify.windows.com@127.0.0.1/", "https://db5.notify.windows.com./",
        "https://db5..notify.windows.com/", "https://%64b5.notify.windows.com/", "https://db5.notify.windows.com/#frag",
        "https://127.0.0.1\\@db5.notify.windows.com/", "https://db5.notify.windows.com:0/",
        "https://db5.notify.windows.com:65536/", "https://db5.notify.windows.com:/",
        "https://db5.notify.windows.com:44a/",
        "https://db5.notify.windows.com/\r\nX-Evil: 1", "https://db5.notify.windows.com/ x", " https://a.b/",
        "https://-db5.notify.windows.com/", "https://db5_.notify.windows.com/", "https://[fe80::1%25eth0]/",
        "https://ä.notify.windows.com/", "https://db5.notify.windows.com/\u{0}",
    ])
    func anythingLooserIsRefused(uri: String) {
        #expect(HTTPSURL(uri) == nil)
    }

    @Test func onlyMicrosoftsHostsAndTheListedOnesAreAdmitted() throws {
        let none = WNSHosts()
        #expect(none.admits(host: "db5.notify.windows.com", port: 443))
        #expect(none.admits(host: "a.b.notify.windows.com", port: 443))
        #expect(!none.admits(host: "notify.windows.com", port: 443))
        #expect(!none.admits(host: "evilnotify.windows.com", port: 443))
        #expect(!none.admits(host: "db5.notify.windows.com", port: 8443))
        #expect(!none.admits(host: "127.0.0.1", port: 443))
        let listed = try WNSHosts(setting: "127.0.0.1:8443, sim.example")
        #expect(listed.admits(host: "127.0.0.1", port: 8443))
        #expect(!listed.admits(host: "127.0.0.1", port: 8444))
        #expect(!listed.admits(host: "127.0.0.1", port: 443))
        #expect(listed.admits(host: "sim.example", port: 443))
        #expect(!listed.admits(host: "x.sim.example", port: 443))
        #expect(throws: LeanError.self) { try listed.channelURL("https://169.254.169.254/latest/meta-data/") }
        #expect(try listed.channelURL("https://127.0.0.1:8443/wns/a").port == 8443)
    }

    @Test(arguments: ["https://127.0.0.1:1", "127.0.0.1:0", "h:99999", "a b", "user@host", "host/x", "host.", ":80"])
    func malformedHostListsAreRefused(setting: String) {
        #expect(throws: LeanError.self) { try WNSHosts(setting: setting) }
        #expect(throws: LeanError.self) { try AppSettings.parse(key: "wns.allowed_hosts", value: setting) }
    }

    @Test func theHostListIsAppWide() throws {
        #expect(try AppSettings.parse(key: "wns.allowed_hosts", value: "127.0.0.1:8443") == "127.0.0.1:8443")
        #expect(throws: LeanError.self) { try AppSettings.parse(key: "wns.p1.allowed_hosts", value: "127.0.0.1") }
    }

    @Test func headerBoundValuesKeepToTheirAlphabet() throws {
        #expect(OutboundText.isTopic("com.example.app.voip"))
        #expect(OutboundText.isTopic("com.example_app-2"))
        for bad in ["com.x\r\nx-evil: 1", "com/x", "", "a b", "com.x\u{0}", String(repeating: "a", count: 256)] {
            #expect(!OutboundText.isTopic(bad), "\(bad)")
            #expect(throws: LeanError.self) {
                try AppSettings.parse(key: "apns.topic", value: bad.isEmpty ? "\n" : bad)
            }
        }
        #expect(OutboundText.isPathSafeDeviceToken("00ff"))
        for bad in ["", "0g", "ab/../cd", "ab?x", "ab#", "ab\r\n", "１２"] {
            #expect(!OutboundText.isPathSafeDeviceToken(bad), "\(bad)")
        }
    }
}
