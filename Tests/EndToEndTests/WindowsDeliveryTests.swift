import Foundation
import PushCore
import TestEnvironment
import TestSupport
import Testing

@Suite("Windows delivery through WNS end to end", .requiresPostgreSQL, .serialized)
struct WindowsDeliveryTests {
    @discardableResult
    private func installWindows(
        _ f: PushFixture, _ iid: String, channel: String, type: String = "windows"
    )
        async throws -> String
    {
        let reply = try await f.client.send(
            "POST", "/1.1/installations",
            json: [
                "deviceType": .string(type), "installationId": .string(iid),
                "subscriptionUri": .string(f.simulator.wnsChannel(channel)), "channels": ["win"],
            ])
        #expect(reply.status == 201, "\(reply.text)")
        return try #require(reply.body["objectId"]?.stringValue, "\(reply.text)")
    }

    @Test(
        "windows installations get a toast over WNS with an OAuth token; counts match the simulator's; a 410 channel is invalidated"
    )
    func pushThroughWNS() async throws {
        let f = try await PushFixture.make()
        defer { f.stop() }
        for i in 1...3 { try await installWindows(f, "w\(i)", channel: "chan-\(i)", type: i == 1 ? "wp" : "windows") }
        let expired = try await installWindows(f, "w4", channel: "expired-4")
        try await f.install(hexToken(40), channels: ["win"])
        let id = try await f.push([
            "channels": ["win"], "expiration_interval": 600,
            "data": [
                "wp": ["title": "Tom & <Jerry>", "alert": "Hi \"there\"", "wp-param": "/Main.xaml?a=1&b=2"],
                "ios": ["alert": "for iOS"],
            ],
        ])
        let record = try await f.waitDone(id)
        let stats = try f.simulator.control("stats?tokens=0")
        #expect(record["status"] == "done")
        #expect(record["devices"] == 5)
        #expect(record["successes"] == 4)
        #expect(record["iosSuccesses"] == 1)
        #expect(record["androidSuccesses"] == 0)
        #expect(record["windowsSuccesses"] == 3)
        #expect(record["errors"] == 1)
        #expect(record["invalidTokens"] == 1)
        // Exactly what the simulator itself accepted.
        #expect(stats["wns"]?["accepted"] == record["windowsSuccesses"])
        #expect(stats["wns"]?["rejected"]?["ChannelExpired"] == 1)
        #expect(stats["wns"]?["rejected"]?["Unauthorized"] == nil)
        #expect(stats["wnsOAuth"]?["accepted"]?.intValue ?? 0 >= 1)
        #expect(stats["apns"]?["accepted"] == 1)

        let seen = try f.simulator.requests(token: "chan-1")
        #expect(seen["accepted"] == 1)
        let request = try #require(seen["recorded"]?.arrayValue?.first)
        #expect(request["path"] == "/wns/chan-1")
        #expect(
            request["payload"]
                == .string(
                    #"<toast launch="/Main.xaml?a=1&amp;b=2"><visual><binding template="ToastGeneric">"#
                        + #"<text>Tom &amp; &lt;Jerry&gt;</text><text>Hi &quot;there&quot;</text></binding></visual>"#
                        + "</toast>"))
        let headers = try #require(request["headers"])
        #expect(headers["x-wns-type"] == "wns/toast")
        #expect(headers["content-type"] == "text/xml")
        #expect(headers["authorization"]?.stringValue?.hasPrefix("Bearer ") == true)
        let ttl = Int(headers["x-wns-ttl"]?.stringValue ?? "") ?? 0
        #expect(ttl > 590 && ttl <= 600)

        // The expired channel's installation is gone, and the next push skips it.
        #expect(try await f.client.send("GET", "/1.1/installations/\(expired)").status == 404)
        let windows = try await f.master.send(
            "GET", "/1.1/installations?where=\(TestHTTP.encode(#"{"deviceType":"windows"}"#))&count=1")
        #expect(windows.body["count"] == 3)
        #expect(windows.body["results"]?.arrayValue?.allSatisfy { $0["deviceType"] == "windows" } == true)
        let second = try await f.waitDone(
            try await f.push(["channels": ["win"], "data": ["wp": ["type": "raw", "k": "v"]]]))
        #expect(second["devices"] == 3)
        #expect(second["windowsSuccesses"] == 3)
        #expect(try f.simulator.requests(token: "expired-4")["requests"] == 1)
        let raw = try #require(try f.simulator.requests(token: "chan-2")["recorded"]?.arrayValue?.last)
        #expect(raw["headers"]?["x-wns-type"] == "wns/raw")
        #expect(raw["payload"]?["_nid"]?.stringValue == second["objectId"]?.stringValue)
        #expect(try f.simulator.control("stats?tokens=0")["wns"]?["accepted"] == 6)

        // /push/devices reaches a Windows device by installationId.
        let direct = try await f.waitDone(
            try await f.push(
                ["device_type": "wp", "device_ids": ["w2"], "data": ["alert": "direct"]], path: "/1.1/push/devices"))
        #expect(direct["windowsSuccesses"] == 1)
        #expect(try f.simulator.requests(token: "chan-2")["accepted"] == 3)
        #expect(ServerProcessRebuild.verify(f.db.url))
    }

    @Test(
        "windows installations need an https subscriptionUri; without WNS credentials targets fail with NoCredentials")
    func validationAndMissingCredentials() async throws {
        let f = try await PushFixture.make()
        defer { f.stop() }
        for (body, code) in [
            (["deviceType": "windows", "installationId": "x", "subscriptionUri": "http://insecure/1"] as JSON, 1),
            (["deviceType": "wp", "installationId": "x"] as JSON, 135),
        ] {
            let reply = try await f.client.send("POST", "/1.1/installations", json: body)
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.body["code"]?.intValue == Int64(code), "\(reply.text)")
        }
        let unset = try ServerProcess.command(
            ["app", "set", "--app", "app1", "wns.package_sid=", "wns.secret="], databaseURL: f.db.url)
        #expect(unset.status == 0, "\(unset.output)")
        // Apps are cached for two seconds.
        try await Task.sleep(for: .milliseconds(2500))
        try await installWindows(f, "w1", channel: "chan-1")
        let record = try await f.waitDone(try await f.push(["channels": ["win"], "data": ["alert": "x"]]))
        #expect(record["devices"] == 1)
        #expect(record["errors"] == 1)
        #expect(record["errorReasons"]?["NoCredentials"] == 1)
        #expect(try f.simulator.requests(token: "chan-1")["requests"] == 0)
    }
}
