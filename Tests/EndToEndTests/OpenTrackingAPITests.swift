import Foundation
import PushCore
import TestEnvironment
import TestSupport
import Testing

@Suite("Open tracking and push limits over HTTP", .requiresPostgreSQL, .serialized)
struct OpenTrackingAPITests {
    @Test("a delivered push is opened through /events/AppOpened and /stats/collect; the record counts the opens")
    func opensOverHTTP() async throws {
        let f = try await PushFixture.make()
        defer { f.stop() }
        let i1 = try await f.install(hexToken(1))
        try await f.install(hexToken(2), extra: ["installationId": "dev-2"])
        let id = try await f.push(["channels": ["news"], "data": ["alert": "hi"]])
        #expect(try await f.waitDone(id)["successes"] == 2)

        // Explicit _nid by objectId, then an SDK-format push open without _nid (attributed to the last delivery).
        let explicit = try await f.client.send(
            "POST", "/1.1/events/AppOpened", json: ["objectId": .string(i1), "notificationId": .string(id)])
        #expect(explicit.status == 201, "\(explicit.text)")
        #expect(explicit.body["notificationId"]?.stringValue == id)
        #expect(explicit.body["attribution"] == "explicit")
        let collected = try await f.client.send(
            "POST", "/1.1/stats/collect",
            json: [
                "device": ["installation_id": "dev-2", "os": "iOS"],
                "events": ["event": [["event": "!AV!PushOpen", "attr": [:]], ["event": "_page", "duration": 3]]],
            ])
        #expect(collected.status == 200, "\(collected.text)")
        #expect(collected.body["opens"]?.arrayValue?.first?["notificationId"]?.stringValue == id)
        #expect(collected.body["opens"]?.arrayValue?.first?["attribution"] == "recent")
        #expect(try await f.master.send("GET", "/1.1/notifications/\(id)").body["opens"] == 2)

        // Bad input: the LeanCloud error, and nothing recorded.
        let before = try await f.db.eventCount()
        let missing = try await f.client.send("POST", "/1.1/events/AppOpened", json: ["notificationId": .string(id)])
        #expect(missing.status == 400)
        #expect(missing.body["code"] == 135)
        let unknown = try await f.client.send("POST", "/1.1/events/AppOpened", json: ["installationId": "nobody"])
        #expect(unknown.status == 404)
        #expect(unknown.body["code"] == 101)
        let noEvents = try await f.client.send(
            "POST", "/1.1/stats/collect", json: ["device": ["installation_id": "dev-2"]])
        #expect(noEvents.body["code"] == 135)
        #expect(try await f.db.eventCount() == before)
    }

    @Test("beyond push_rate_per_minute every push call gets 429 with Retry-After for 60 s")
    func rateLimitOverHTTP() async throws {
        let f = try await PushFixture.make()
        defer { f.stop() }
        let set = try ServerProcess.command(
            ["app", "set", "--app", "app1", "push_rate_per_minute=2"], databaseURL: f.db.url)
        #expect(set.status == 0)
        // The server caches apps briefly; wait until it sees the new limit.
        try await Task.sleep(for: .seconds(3))
        let body: JSON = ["where": ["deviceType": "none"], "data": ["alert": "x"]]
        var statuses: [Int] = []
        var retryAfter: [String?] = []
        for _ in 0..<5 {
            let reply = try await f.master.send("POST", "/1.1/push", json: body)
            statuses.append(reply.status)
            retryAfter.append(reply.headers["retry-after"] ?? reply.headers["Retry-After"])
            if reply.status == 429 { #expect(reply.body["code"] == 429) }
        }
        // Two calls fit in a minute; if the minute turns, two more may; the fifth is refused either way.
        #expect(statuses.filter { $0 == 200 }.count >= 2)
        #expect(statuses.last == 429)
        #expect(retryAfter.last??.isEmpty == false)
    }

    @Test("two server processes share one rate limit: across both, no more than the limit pass in a minute")
    func rateLimitAcrossProcesses() async throws {
        let f = try await PushFixture.make()
        defer { f.stop() }
        #expect(
            try ServerProcess.command(["app", "set", "--app", "app1", "push_rate_per_minute=3"], databaseURL: f.db.url)
                .status == 0)
        let second = try ServerProcess(databaseURL: f.db.url)
        defer { second.stop() }
        let other = TestHTTP(baseURL: second.baseURL, headers: f.master.headers)
        try await Task.sleep(for: .seconds(3))
        // Start early in a minute so all calls fall into it.
        while Calendar(identifier: .gregorian).component(.second, from: Date()) > 40 {
            try await Task.sleep(for: .seconds(1))
        }
        let body: JSON = ["where": ["deviceType": "none"], "data": ["alert": "x"]]
        var accepted = 0
        for i in 0..<8 {
            let reply = try await (i % 2 == 0 ? f.master : other).send("POST", "/1.1/push", json: body)
            if reply.status == 200 { accepted += 1 } else { #expect(reply.status == 429) }
        }
        #expect(accepted == 3)
        let bans = try await f.db.ledger.pool.query(
            "SELECT count(*) AS n FROM events WHERE app_id = 'app1' AND type = \(UsageEvent.rateLimited)")[0].int("n")
        #expect(bans == 1)
    }
}
