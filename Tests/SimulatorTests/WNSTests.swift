import Foundation
import Simulator
import Testing

@Suite("WNS token endpoint and notifications")
struct WNSTests {
    static let credentials = WNSCredentials(packageSid: "ms-app://s-1-15-2-42", secret: "s3cr+t")
    static let toast =
        #"<toast launch="a&amp;b"><visual><binding template="ToastGeneric"><text>hi</text>"#
        + "</binding></visual></toast>"

    private static func token(
        _ simulator: SimulatorHarness, sid: String = credentials.packageSid, secret: String = credentials.secret,
        scope: String = "notify.windows.com"
    ) throws -> CurlResponse {
        let form = [
            ("grant_type", "client_credentials"), ("client_id", sid), ("client_secret", secret), ("scope", scope),
        ]
        .map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        .joined(separator: "&")
        return try simulator.request(
            "POST", "/accesstoken.srf", headers: ["content-type": "application/x-www-form-urlencoded"], body: form)
    }

    private static func notify(
        _ simulator: SimulatorHarness, channel: String, bearer: String?, type: String = "wns/toast",
        body: String = toast
    ) throws -> CurlResponse {
        var headers = ["content-type": type == "wns/raw" ? "application/octet-stream" : "text/xml", "x-wns-type": type]
        if let bearer { headers["authorization"] = "Bearer \(bearer)" }
        return try simulator.request("POST", "/wns/\(channel)", headers: headers, body: body)
    }

    @Test("the configured package SID and secret buy a token that notifications need; others are refused")
    func tokenThenNotify() async throws {
        try await SimulatorHarness.with({ $0.wnsCredentials = [Self.credentials] }) { simulator in
            #expect(try Self.token(simulator, secret: "wrong").status == 400)
            #expect(try Self.token(simulator, secret: "wrong").json["error"] as? String == "invalid_client")
            #expect(try Self.token(simulator, scope: "other").json["error"] as? String == "invalid_scope")
            let granted = try Self.token(simulator)
            #expect(granted.status == 200)
            let body = try granted.json
            #expect(body["token_type"] as? String == "bearer")
            #expect(body["expires_in"] as? Int == 86_400)
            let bearer = try #require(body["access_token"] as? String)

            #expect(try Self.notify(simulator, channel: "c1", bearer: nil).status == 401)
            #expect(try Self.notify(simulator, channel: "c1", bearer: "forged").status == 401)
            let accepted = try Self.notify(simulator, channel: "c1", bearer: bearer)
            #expect(accepted.status == 200)
            #expect(accepted.headers["x-wns-status"] == "received")
            #expect(accepted.headers["x-wns-msg-id"] != nil)
            #expect(
                try Self.notify(simulator, channel: "c1", bearer: bearer, type: "wns/raw", body: "{}").status == 200)
            let malformed = try Self.notify(
                simulator, channel: "c1", bearer: bearer, body: "<toast><text>a & b</toast>")
            #expect(malformed.status == 400)
            let expired = try Self.notify(simulator, channel: "expired-9", bearer: bearer)
            #expect(expired.status == 410)
            #expect(expired.headers["x-wns-error-description"] == "ChannelExpired")

            let stats = try simulator.statistics()
            let wns = try #require(stats["wns"] as? [String: Any])
            #expect(wns["accepted"] as? Int == 2)
            #expect((wns["rejected"] as? [String: Int])?["ChannelExpired"] == 1)
            #expect((wns["rejected"] as? [String: Int])?["Unauthorized"] == 2)
            #expect((stats["wnsOAuth"] as? [String: Any])?["accepted"] as? Int == 1)
            let channel = try simulator.request("GET", "/_sim/requests?token=c1").json
            #expect(channel["accepted"] as? Int == 2)
            #expect(simulator.info.appSettings["wns.token_endpoint"] == simulator.info.wnsTokenEndpoint)
        }
    }
}
