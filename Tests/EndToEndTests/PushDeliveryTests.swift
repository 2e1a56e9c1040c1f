import Foundation
import PushCore
import TestEnvironment
import TestSupport
import Testing

@Suite("Push delivery end to end", .requiresPostgreSQL, .serialized)
struct PushDeliveryTests {
    @Test(
        "a push by channel reaches exactly the channel's tokens with the right payload, headers and JWT",
        arguments: ServerTransports.all)
    func pushByChannel(transport: String) async throws {
        let f = try await PushFixture.make(serverArguments: ServerTransports.arguments(transport))
        defer { f.stop() }
        for i in 1...3 { try await f.install(hexToken(i), channels: ["news"], badge: i) }
        try await f.install(hexToken(10), channels: ["sports"])
        let expiration = Date().addingTimeInterval(3600)
        let id = try await f.push([
            "channels": ["news"], "expiration_time": .string(LeanDate.format(expiration)),
            "data": [
                "alert": ["title": "Hello", "body": "World"], "badge": "Increment", "sound": "default",
                "custom": "beside",
            ],
        ])
        let record = try await f.waitDone(id)
        #expect(record["status"] == "done")
        #expect(record["devices"] == 3)
        #expect(record["successes"] == 3)
        #expect(record["iosSuccesses"] == 3)
        #expect(record["errors"] == 0)
        for i in 1...3 {
            let seen = try f.simulator.requests(token: hexToken(i))
            #expect(seen["requests"] == 1)
            let request = try #require(seen["recorded"]?.arrayValue?.first)
            let payload = try #require(request["payload"])
            #expect(payload["aps"]?["alert"] == ["title": "Hello", "body": "World"])
            #expect(payload["aps"]?["badge"]?.intValue == Int64(i + 1))
            #expect(payload["aps"]?["sound"] == "default")
            #expect(payload["custom"] == "beside")
            #expect(payload["_nid"]?.stringValue == id)
            let headers = try #require(request["headers"])
            #expect(headers["apns-topic"]?.stringValue == f.keys.topic)
            #expect(headers["apns-push-type"] == "alert")
            #expect(headers["apns-priority"] == "10")
            #expect(headers["apns-expiration"]?.stringValue == String(Int64(expiration.timeIntervalSince1970)))
            #expect(headers["apns-collapse-id"]?.stringValue == id)
            // The simulator verified the ES256 JWT against the key (it answers 403 otherwise).
            #expect(headers["authorization"]?.stringValue?.hasPrefix("bearer ey") == true)
            #expect(request["status"] == 200)
        }
        #expect(try f.simulator.requests(token: hexToken(10))["requests"] == 0)
        // The stored badges moved too, as events.
        let badges = try await f.master.send(
            "GET", "/1.1/installations?where=\(TestHTTP.encode("{\"channels\":\"news\"}"))&order=badge"
        ).body
        #expect(badges["results"]?.arrayValue?.compactMap { $0["badge"]?.intValue } == [2, 3, 4])
        #expect(ServerProcessRebuild.verify(f.db.url))
    }

    @Test(
        "Android installations with a registrationId go through FCM HTTP v1 with an OAuth token; one without waits on the own channel"
    )
    func pushThroughFCM() async throws {
        let f = try await PushFixture.make()
        defer { f.stop() }
        for (iid, reg) in [("a1", "fcm-token-1"), ("a2", "fcm-token-2")] {
            _ = try await f.client.send(
                "POST", "/1.1/installations",
                json: [
                    "deviceType": "android", "installationId": .string(iid), "registrationId": .string(reg),
                    "channels": ["droid"],
                ])
        }
        _ = try await f.client.send(
            "POST", "/1.1/installations",
            json: [
                "deviceType": "android", "installationId": "a3", "channels": ["droid"],
            ])
        let id = try await f.push([
            "channels": ["droid"], "expiration_interval": 600,
            "data": ["android": ["alert": "Hi droid", "title": "T", "extra": ["n": 1]]],
        ])
        let record = try await f.waitDone(id)
        #expect(record["devices"] == 3)
        #expect(record["successes"] == 2)
        #expect(record["androidSuccesses"] == 2)
        #expect(record["errors"] == 0)
        // a3 has no registrationId: its message waits for it to connect to the own channel.
        #expect(record["channelPending"] == 1)
        let queued = try await f.db.ledger.pool.query(
            "SELECT data->>'queued' AS n FROM events WHERE type = 'PushBatchDelivered'")[0]["n"]
        #expect(queued == "1")
        let seen = try f.simulator.requests(token: "fcm-token-1")
        let request = try #require(seen["recorded"]?.arrayValue?.first)
        #expect(request["path"] == "/v1/projects/demo/messages:send")
        #expect(request["headers"]?["authorization"]?.stringValue?.hasPrefix("Bearer ") == true)
        let message = try #require(request["payload"]?["message"])
        #expect(message["token"] == "fcm-token-1")
        #expect(message["data"]?["_nid"]?.stringValue == id)
        #expect(message["data"]?["alert"] == "Hi droid")
        #expect(message["notification"]?["title"] == "T")
        let ttl = message["android"]?["ttl"]?.stringValue ?? ""
        #expect(ttl.hasSuffix("s") && (Int(ttl.dropLast()) ?? 0) > 590)
        let stats = try f.simulator.control("stats?tokens=0")
        #expect(stats["oauth"]?["accepted"]?.intValue ?? 0 >= 1)
    }

    @Test("pushes by where and by device list; silent pushes go as background with priority 5")
    func pushByWhereAndDevices() async throws {
        let f = try await PushFixture.make()
        defer { f.stop() }
        try await f.install(hexToken(21), extra: ["vip": true, "level": 5])
        try await f.install(hexToken(22), extra: ["vip": false, "level": 9])
        try await f.install(hexToken(23), extra: ["level": 7])
        let byWhere = try await f.push(["where": ["level": ["$gte": 7]], "data": ["content-available": 1, "k": "v"]])
        let record = try await f.waitDone(byWhere)
        #expect(record["devices"] == 2)
        #expect(record["successes"] == 2)
        for n in [22, 23] {
            let req = try #require(try f.simulator.requests(token: hexToken(n))["recorded"]?.arrayValue?.first)
            #expect(req["headers"]?["apns-push-type"] == "background")
            #expect(req["headers"]?["apns-priority"] == "5")
            #expect(req["payload"]?["aps"]?["content-available"] == 1)
        }
        #expect(try f.simulator.requests(token: hexToken(21))["requests"] == 0)

        let byDevices = try await f.push(
            [
                "device_type": "ios", "device_ids": [.string(hexToken(21)), .string(hexToken(99).uppercased())],
                "data": ["alert": "direct"],
            ],
            path: "/1.1/push/devices")
        let direct = try await f.waitDone(byDevices)
        #expect(direct["devices"] == 2)
        #expect(direct["successes"] == 2)
        let seen = try f.simulator.requests(token: hexToken(99))
        #expect(seen["recorded"]?.arrayValue?.first?["payload"]?["aps"]?["alert"] == "direct")
    }

    @Test("410 and BadDeviceToken remove the installation; 429/503 are retried; permanent errors are counted")
    func providerOutcomes() async throws {
        let f = try await PushFixture.make()
        defer { f.stop() }
        let gone = try await f.install(hexToken(1, prefix: "dead"))
        let bad = try await f.install(hexToken(2, prefix: "bad0"))
        try await f.install(hexToken(3, prefix: "4290"))
        try await f.install(hexToken(4, prefix: "5030"))
        try await f.install(hexToken(5, prefix: "5000"))
        try await f.install(hexToken(6))
        let first = try await f.waitDone(try await f.push(["channels": ["news"], "data": ["alert": "one"]]))
        #expect(first["devices"] == 6)
        #expect(first["successes"] == 3)
        #expect(first["errors"] == 3)
        #expect(first["invalidTokens"] == 2)
        #expect(try f.simulator.requests(token: hexToken(3, prefix: "4290"))["requests"] == 3)
        #expect(try f.simulator.requests(token: hexToken(4, prefix: "5030"))["requests"] == 3)
        #expect(try await f.client.send("GET", "/1.1/installations/\(gone)").status == 404)
        #expect(try await f.client.send("GET", "/1.1/installations/\(bad)").status == 404)
        let reasons =
            try await f.db.ledger.pool.query(
                "SELECT data->'reasons' AS r FROM events WHERE type = 'PushBatchDelivered'")[0]["r"] ?? ""
        #expect(
            reasons.contains("Unregistered") && reasons.contains("BadDeviceToken")
                && reasons.contains("InternalServerError"))

        let second = try await f.waitDone(try await f.push(["channels": ["news"], "data": ["alert": "two"]]))
        #expect(second["devices"] == 4)
        #expect(try f.simulator.requests(token: hexToken(1, prefix: "dead"))["requests"] == 1)
        // /push/devices drops a token remembered as invalid.
        let direct = try await f.waitDone(
            try await f.push(
                ["device_type": "ios", "device_ids": [.string(hexToken(1, prefix: "dead"))], "data": ["alert": "x"]],
                path: "/1.1/push/devices"))
        #expect(direct["devices"] == 0)
        #expect(ServerProcessRebuild.verify(f.db.url))
    }

    @Test("scheduled pushes are listed and cancellable; req_id repeats and expired pushes send nothing")
    func scheduleDedupExpiry() async throws {
        let f = try await PushFixture.make()
        defer { f.stop() }
        try await f.install(hexToken(7))
        let later = LeanDate.format(Date().addingTimeInterval(3600))
        let scheduled = try await f.push([
            "channels": ["news"], "push_time": .string(later), "data": ["alert": "later"],
        ])
        #expect(try await f.master.send("GET", "/1.1/notifications/\(scheduled)").body["status"] == "scheduled")
        let list = try await f.master.send("GET", "/1.1/scheduledPushMessages").body["results"]?.arrayValue ?? []
        #expect(list.count == 1)
        let entry = try #require(list.first)
        #expect(entry["push_msg"]?["data"]?["alert"] == "later")
        #expect(
            entry["expire_time"]?.intValue == Int64((LeanDate.parse(later)!.timeIntervalSince1970 * 1000).rounded()))
        let scheduleId = try #require(entry["id"]?.intValue)
        #expect(try await f.client.send("GET", "/1.1/scheduledPushMessages").status == 403)
        #expect(try await f.master.send("DELETE", "/1.1/scheduledPushMessages/\(scheduleId)").body == [:])
        #expect(try await f.master.send("GET", "/1.1/scheduledPushMessages").body["results"] == [])
        #expect(try await f.master.send("GET", "/1.1/notifications/\(scheduled)").body["status"] == "cancelled")
        #expect(try await f.master.send("DELETE", "/1.1/scheduledPushMessages/\(scheduleId)").status == 404)

        let a = try await f.push(["channels": ["news"], "req_id": "abc123", "data": ["alert": "once"]])
        let b = try await f.push(["channels": ["news"], "req_id": "abc123", "data": ["alert": "once"]])
        #expect(a == b)
        _ = try await f.waitDone(a)
        let expired = try await f.push([
            "channels": ["news"], "expiration_time": .string(LeanDate.format(Date().addingTimeInterval(-5))),
            "data": ["alert": "stale"],
        ])
        let done = try await f.waitDone(expired)
        #expect(done["status"] == "done")
        #expect(done["devices"] == 0)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try f.simulator.requests(token: hexToken(7))["requests"] == 1)
        #expect(
            try await f.db.ledger.pool.query("SELECT count(*) AS n FROM events WHERE type = 'PushExpired'")[0].int("n")
                == 1)
        // Deleting a record removes it.
        #expect(try await f.master.send("DELETE", "/1.1/notifications/\(a)").status == 200)
        #expect(try await f.master.send("GET", "/1.1/notifications/\(a)").status == 404)
        #expect(ServerProcessRebuild.verify(f.db.url))
    }

    @Test("bad push requests answer LeanCloud errors and append nothing; clients need client_push")
    func badPushRequests() async throws {
        let f = try await PushFixture.make()
        defer { f.stop() }
        let before = try await f.db.eventCount()
        let cases: [(JSON, Int)] = [
            (["channels": ["news"]], 1),
            (["where": ["a": ["$bogus": 1]], "data": ["alert": "x"]], 102),
            (["channels": ["bad name"], "data": ["alert": "x"]], 112),
            (["data": ["alert": "x"], "push_time": "not a date"], 1),
            (["data": ["alert": "x"], "req_id": "way-too-long-request-id"], 1),
            (["data": ["alert": "x"], "prod": "staging"], 1),
            (["data": "not an object"], 107),
        ]
        for (body, code) in cases {
            let reply = try await f.master.send("POST", "/1.1/push", json: body)
            #expect(reply.body["code"]?.intValue == Int64(code), "\(body.encoded()): \(reply.text)")
        }
        let tooMany = try await f.master.send(
            "POST", "/1.1/push/devices",
            json: [
                "device_type": "ios", "device_ids": .array((0..<501).map { .string(hexToken($0)) }),
                "data": ["alert": "x"],
            ])
        #expect(tooMany.status == 400)
        #expect(tooMany.body["code"] == 1)
        let fiveHundred = try await f.master.send(
            "POST", "/1.1/push/devices",
            json: [
                "device_type": "ios", "device_ids": .array((0..<500).map { .string(hexToken($0, prefix: "bad0")) }),
                "data": ["alert": .string(String(repeating: "y", count: 5000))],
            ])
        #expect(
            fiveHundred.status == 400, "a 500-token list is accepted but a 5000-byte alert exceeds APNs' payload limit")
        let big = try await f.master.send(
            "POST", "/1.1/push", json: ["data": ["alert": .string(String(repeating: "x", count: 5000))]])
        #expect(big.status == 413)
        let asClient = try await f.client.send("POST", "/1.1/push", json: ["data": ["alert": "x"]])
        #expect(asClient.status == 403)
        #expect(asClient.body["code"] == 119)
        #expect(try await f.db.eventCount() == before)
    }
}

enum ServerProcessRebuild {
    static func verify(_ url: String) -> Bool {
        guard let result = try? ServerProcess.command(["rebuild", "--verify"], databaseURL: url) else { return false }
        if result.status != 0 { print(result.output) }
        return result.status == 0
    }
}
