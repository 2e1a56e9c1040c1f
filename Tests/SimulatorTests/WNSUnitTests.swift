import NIOCore
import Testing

@testable import Simulator

@Suite("WNS look-alike checks")
struct WNSUnitTests {
    @Test("well-formed payloads name their root element; malformed ones are refused")
    func wellFormedness() {
        #expect(
            XMLWellFormedness.rootElement(
                #"<toast launch="a&amp;b"><visual><binding template="ToastGeneric"><text>x &lt; y</text>"#
                    + #"</binding></visual></toast>"#) == "toast")
        #expect(XMLWellFormedness.rootElement(#"<?xml version="1.0"?> <badge value="3"/> "#) == "badge")
        #expect(XMLWellFormedness.rootElement("<tile><visual/></tile>") == "tile")
        for malformed in [
            "<toast><text>a & b</text></toast>", "<toast><text>a < b</text></toast>", "<toast><text>x</toast>",
            #"<toast launch="a"b"></toast>"#, #"<toast launch="<"></toast>"#, "<toast></toast><toast></toast>",
            "text<toast/>", "<toast>", "", "<toast launch=a></toast>", "<toast><text>&bogus;</text></toast>",
        ] {
            #expect(XMLWellFormedness.rootElement(malformed) == nil, "\(malformed)")
        }
    }

    private func request(type: String?, contentType: String, body: String) -> SimulatorRequest {
        var headers: [(name: String, value: String)] = [("content-type", contentType)]
        if let type { headers.append(("x-wns-type", type)) }
        return SimulatorRequest(
            method: "POST", path: "/wns/1", headers: headers, body: ByteBuffer(string: body), bodyTooLarge: false)
    }

    @Test("notifications need a known type, its content type and a body of that type")
    func notificationValidation() {
        let toast = #"<toast><visual><binding template="ToastGeneric"><text>hi</text></binding></visual></toast>"#
        #expect(
            SimulatorEngine.validateNotification(request(type: "wns/toast", contentType: "text/xml", body: toast))
                == nil)
        #expect(
            SimulatorEngine.validateNotification(
                request(type: "wns/raw", contentType: "application/octet-stream", body: "{}")) == nil)
        let badRequest = ProviderRejection(status: 400, reason: "BadRequest")
        #expect(
            SimulatorEngine.validateNotification(request(type: nil, contentType: "text/xml", body: toast)) == badRequest
        )
        #expect(
            SimulatorEngine.validateNotification(request(type: "wns/tile", contentType: "text/xml", body: toast))
                == badRequest)
        #expect(
            SimulatorEngine.validateNotification(
                request(type: "wns/toast", contentType: "application/json", body: toast))
                == badRequest)
        #expect(
            SimulatorEngine.validateNotification(
                request(type: "wns/toast", contentType: "text/xml", body: String(repeating: "x", count: 6000)))
                == ProviderRejection(status: 413, reason: "PayloadTooLarge"))
    }

    @Test("the default rules expire and throttle WNS channels by channel id")
    func defaultRules() {
        let settings = RuntimeSettings(SimulatorConfiguration())
        #expect(settings.rule(for: .wns, token: "expired-1"[...])?.status == 410)
        #expect(settings.rule(for: .wns, token: "notfound-1"[...])?.status == 404)
        #expect(settings.rule(for: .wns, token: "throttled-1"[...])?.failingAttempts == 2)
        #expect(settings.rule(for: .wns, token: "w1"[...]) == nil)
    }
}
