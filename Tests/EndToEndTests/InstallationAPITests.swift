import Foundation
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// One server process per test against its own database, with two apps.
struct APIFixture {
    let db: TestDatabase
    let server: ServerProcess
    let client: TestHTTP
    let master: TestHTTP
    let other: TestHTTP

    static func make() async throws -> APIFixture {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "one", appId: "app1", appKey: "key1", masterKey: "master1")
        _ = try await db.ledger.apps.create(name: "two", appId: "app2", appKey: "key2", masterKey: "master2")
        let server = try ServerProcess(databaseURL: db.url)
        return APIFixture(
            db: db, server: server,
            client: TestHTTP(baseURL: server.baseURL, headers: ["X-LC-Id": "app1", "X-LC-Key": "key1"]),
            master: TestHTTP(baseURL: server.baseURL, headers: ["X-LC-Id": "app1", "X-LC-Key": "master1,master"]),
            other: TestHTTP(baseURL: server.baseURL, headers: ["X-LC-Id": "app2", "X-LC-Key": "master2,master"]))
    }
}

let tokenA = String(repeating: "ab", count: 32)
let tokenB = String(repeating: "cd", count: 32)

@Suite("Installation REST API", .requiresPostgreSQL, .serialized)
struct InstallationAPITests {
    @Test("create answers 201 with Location; a second POST with the same token is an upsert answering 200")
    func upsertByDeviceToken() async throws {
        let f = try await APIFixture.make()
        defer { f.server.stop() }
        let created = try await f.client.send(
            "POST", "/1.1/installations",
            json: [
                "deviceType": "ios", "deviceToken": .string(tokenA.uppercased()), "channels": ["news"],
            ])
        #expect(created.status == 201)
        let id = try #require(created.body["objectId"]?.stringValue)
        #expect(created.headers["location"] == "/1.1/installations/\(id)")
        #expect(created.body["createdAt"]?.stringValue?.hasSuffix("Z") == true)

        let again = try await f.client.send(
            "POST", "/1.1/classes/_Installation",
            json: [
                "deviceType": "ios", "deviceToken": .string(tokenA), "channels": ["sports"],
            ])
        #expect(again.status == 200)
        #expect(again.body["objectId"]?.stringValue == id)
        #expect(again.body["updatedAt"] != nil)

        let fetched = try await f.client.send("GET", "/1.1/installations/\(id)")
        #expect(fetched.body["deviceToken"]?.stringValue == tokenA)
        #expect(fetched.body["channels"] == ["sports"])

        let android = try await f.client.send(
            "POST", "/1.1/installations", json: ["deviceType": "android", "installationId": "iid-1"])
        let android2 = try await f.client.send(
            "POST", "/1.1/installations",
            json: ["deviceType": "android", "installationId": "iid-1", "registrationId": "r1"])
        #expect(android.status == 201)
        #expect(android2.status == 200)
        #expect(android.body["objectId"] == android2.body["objectId"])
    }

    @Test("every kind of bad input answers its LeanCloud code and appends nothing")
    func badInputChangesNothing() async throws {
        let f = try await APIFixture.make()
        defer { f.server.stop() }
        let created = try await f.client.send(
            "POST", "/1.1/installations", json: ["deviceType": "ios", "deviceToken": .string(tokenA)])
        let id = try #require(created.body["objectId"]?.stringValue)
        let before = try await f.db.eventCount()
        let cases: [(String, String, JSON?, Data?, Int, Int)] = [
            ("POST", "/1.1/installations", ["deviceType": "ios", "deviceToken": "not-hex"], nil, 400, 114),
            (
                "POST", "/1.1/installations",
                ["deviceType": "ios", "deviceToken": .string(tokenB), "channels": ["a b"]], nil, 400, 112
            ),
            (
                "POST", "/1.1/installations",
                ["deviceType": "ios", "deviceToken": .string(tokenB), "channels": "news"], nil, 400, 1
            ),
            ("POST", "/1.1/installations", ["deviceToken": .string(tokenB)], nil, 400, 135),
            ("POST", "/1.1/installations", ["deviceType": "android"], nil, 400, 135),
            ("POST", "/1.1/installations", ["deviceType": "ios"], nil, 400, 135),
            ("POST", "/1.1/installations", ["deviceType": "blackberry", "installationId": "x"], nil, 400, 1),
            ("POST", "/1.1/installations", ["deviceType": "windows", "installationId": "x"], nil, 400, 135),
            (
                "POST", "/1.1/installations",
                ["deviceType": "wp", "installationId": "x", "subscriptionUri": "ftp://x/1"], nil, 400, 1
            ),
            (
                "POST", "/1.1/installations", ["deviceType": "ios", "deviceToken": .string(tokenB), "badge": -1], nil,
                400, 1
            ),
            (
                "POST", "/1.1/installations",
                ["deviceType": "ios", "deviceToken": .string(tokenB), "deviceProfile": "9bad"], nil, 400, 1
            ),
            ("POST", "/1.1/installations", nil, Data("{\"deviceType\":".utf8), 400, 107),
            ("POST", "/1.1/installations", nil, Data("[1,2]".utf8), 400, 107),
            ("PUT", "/1.1/installations/\(id)", ["deviceType": "android"], nil, 400, 136),
            ("PUT", "/1.1/installations/\(id)", ["channels": ["__op": "Explode"]], nil, 400, 1),
            (
                "PUT", "/1.1/installations/\(id)", ["channels": ["__op": "Add", "objects": ["ok", "not ok"]]], nil, 400,
                112
            ),
            ("PUT", "/1.1/installations/\(id)", ["badge": ["__op": "Increment", "amount": "x"]], nil, 400, 1),
            ("PUT", "/1.1/installations/\(id)", ["$bad": 1], nil, 400, 105),
            ("PUT", "/1.1/installations/nope", ["badge": 1], nil, 404, 101),
            ("GET", "/1.1/installations/nope", nil, nil, 404, 101),
            (
                "POST", "/1.1/installations", nil,
                Data(("{\"deviceType\":\"ios\",\"x\":\"" + String(repeating: "a", count: 70_000) + "\"}").utf8), 413, 1
            ),
        ]
        for (method, path, json, raw, status, code) in cases {
            let reply = try await f.client.send(method, path, json: json, rawBody: raw)
            #expect(reply.status == status, "\(method) \(path) \(json?.encoded() ?? "raw"): \(reply.text)")
            #expect(
                reply.body["code"]?.intValue == Int64(code),
                "\(method) \(path) \(json?.encoded() ?? "raw"): \(reply.text)")
            #expect(reply.body["error"]?.stringValue?.isEmpty == false)
        }
        let badQueries = ["{\"channels\":{\"$foo\":1}}", "{\"a\":{\"$in\":1}}", "[1]", "{bad"]
        for q in badQueries {
            let reply = try await f.master.send("GET", "/1.1/installations?where=\(TestHTTP.encode(q))")
            #expect(reply.status == 400)
            #expect(reply.body["code"]?.intValue == 102, "\(q): \(reply.text)")
        }
        let badLimit = try await f.master.send("GET", "/1.1/installations?limit=5000")
        #expect(badLimit.body["code"]?.intValue == 1)
        #expect(try await f.db.eventCount() == before)
    }

    @Test("authentication: keys, master keys, signatures with a 15-minute window, legacy headers")
    func authentication() async throws {
        let f = try await APIFixture.make()
        defer { f.server.stop() }
        let anon = TestHTTP(baseURL: f.server.baseURL)
        let unauthorized: [[String: String]] = [
            [:], ["X-LC-Id": "app1"], ["X-LC-Id": "app1", "X-LC-Key": "wrong"],
            ["X-LC-Id": "nope", "X-LC-Key": "key1"],
            ["X-LC-Id": "app1", "X-LC-Key": "master1"], ["X-LC-Id": "app1", "X-LC-Key": "key2"],
            ["X-LC-Id": "app1", "X-LC-Sign": Self.sign("key1", at: Date().addingTimeInterval(-16 * 60))],
            ["X-LC-Id": "app1", "X-LC-Sign": Self.sign("wrong", at: Date())],
        ]
        for headers in unauthorized {
            let reply = try await anon.send("GET", "/1.1/installations/x", headers: headers)
            #expect(reply.status == 401, "\(headers)")
            #expect(reply.body == ["code": 401, "error": "Unauthorized."])
        }
        let accepted: [[String: String]] = [
            ["X-LC-Id": "app1", "X-LC-Key": "key1"],
            ["X-LC-Id": "app1", "X-LC-Sign": Self.sign("key1", at: Date())],
            ["X-LC-Id": "app1", "X-LC-Sign": Self.sign("key1", at: Date().addingTimeInterval(-14 * 60))],
            ["X-AVOSCloud-Application-Id": "app1", "X-AVOSCloud-Application-Key": "key1"],
            ["X-AVOSCloud-Application-Id": "app1", "X-AVOSCloud-Request-Sign": Self.sign("key1", at: Date())],
        ]
        for headers in accepted {
            let reply = try await anon.send("GET", "/1.1/installations/x", headers: headers)
            #expect(reply.status == 404, "\(headers): \(reply.text)")
        }
        // Listing needs the master key in any of its spellings.
        let asClient = try await anon.send(
            "GET", "/1.1/installations", headers: ["X-LC-Id": "app1", "X-LC-Key": "key1"])
        #expect(asClient.status == 403)
        #expect(asClient.body["code"]?.intValue == 119)
        for headers in [
            ["X-LC-Id": "app1", "X-LC-Key": "master1,master"],
            ["X-LC-Id": "app1", "X-LC-Sign": Self.sign("master1", at: Date()) + ",master"],
            ["X-AVOSCloud-Application-Id": "app1", "X-AVOSCloud-Master-Key": "master1"],
        ] {
            let reply = try await anon.send("GET", "/1.1/installations", headers: headers)
            #expect(reply.status == 200, "\(headers): \(reply.text)")
        }
    }

    @Test("one app's keys can neither read nor change another app's installations")
    func appIsolation() async throws {
        let f = try await APIFixture.make()
        defer { f.server.stop() }
        let created = try await f.client.send(
            "POST", "/1.1/installations",
            json: ["deviceType": "ios", "deviceToken": .string(tokenA), "channels": ["a"]])
        let id = try #require(created.body["objectId"]?.stringValue)
        #expect(try await f.other.send("GET", "/1.1/installations/\(id)").status == 404)
        #expect(try await f.other.send("PUT", "/1.1/installations/\(id)", json: ["badge": 9]).status == 404)
        #expect(try await f.other.send("DELETE", "/1.1/installations/\(id)").status == 404)
        let list = try await f.other.send("GET", "/1.1/installations?count=1")
        #expect(list.body["count"] == 0)
        // The same token in the other app is a different installation.
        let theirs = try await f.other.send(
            "POST", "/1.1/installations", json: ["deviceType": "ios", "deviceToken": .string(tokenA)])
        #expect(theirs.status == 201)
        #expect(theirs.body["objectId"] != created.body["objectId"])
        let mine = try await f.client.send("GET", "/1.1/installations/\(id)")
        #expect(mine.body["channels"] == ["a"])
        #expect(mine.body["badge"] == nil)
    }

    @Test("__op operations, badge reset events, and list queries with where/order/limit/skip/keys/count")
    func operationsAndQueries() async throws {
        let f = try await APIFixture.make()
        defer { f.server.stop() }
        var ids: [String] = []
        for i in 0..<6 {
            let reply = try await f.client.send(
                "POST", "/1.1/installations",
                json: [
                    "deviceType": "ios", "deviceToken": .string(String(format: "%064x", i + 1)),
                    "channels": i % 2 == 0 ? ["even", "all"] : ["odd", "all"], "rank": .int(Int64(i)),
                ])
            ids.append(try #require(reply.body["objectId"]?.stringValue))
        }
        let put = try await f.client.send(
            "PUT", "/1.1/installations/\(ids[0])",
            json: [
                "channels": ["__op": "AddUnique", "objects": ["even", "vip"]],
                "badge": ["__op": "Increment", "amount": 3],
                "rank": ["__op": "Delete"],
            ])
        #expect(put.status == 200)
        #expect(put.body["updatedAt"] != nil)
        var fetched = try await f.client.send("GET", "/1.1/installations/\(ids[0])")
        #expect(fetched.body["channels"] == ["even", "all", "vip"])
        #expect(fetched.body["badge"] == 3)
        #expect(fetched.body["rank"] == nil)
        _ = try await f.client.send(
            "PUT", "/1.1/installations/\(ids[0])",
            json: ["channels": ["__op": "Remove", "objects": ["all"]], "badge": 0])
        fetched = try await f.client.send("GET", "/1.1/installations/\(ids[0])")
        #expect(fetched.body["channels"] == ["even", "vip"])
        #expect(fetched.body["badge"] == 0)
        let types = try await f.db.ledger.pool.query(
            "SELECT type FROM events WHERE stream = \("installation:" + ids[0]) ORDER BY version"
        ).map { $0["type"] ?? "" }
        #expect(types == ["InstallationCreated", "InstallationUpdated", "InstallationUpdated", "BadgeReset"])

        func query(_ params: String) async throws -> JSON {
            try await f.master.send("GET", "/1.1/installations?" + params).body
        }
        let odd = try await query("where=\(TestHTTP.encode("{\"channels\":\"odd\"}"))&count=1&order=-rank")
        #expect(odd["count"] == 3)
        #expect(odd["results"]?.arrayValue?.compactMap { $0["rank"]?.intValue } == [5, 3, 1])
        let paged = try await query(
            "where=\(TestHTTP.encode("{\"rank\":{\"$gte\":1}}"))&order=rank&limit=2&skip=1&keys=rank")
        let rows = paged["results"]?.arrayValue ?? []
        #expect(rows.compactMap { $0["rank"]?.intValue } == [2, 3])
        #expect(rows.allSatisfy { $0["channels"] == nil && $0["objectId"] != nil })
        let onlyCount = try await query(
            "where=\(TestHTTP.encode("{\"channels\":{\"$in\":[\"vip\",\"odd\"]}}"))&count=1&limit=0")
        #expect(onlyCount["count"] == 4)
        #expect(onlyCount["results"] == [])
        // A form-encoded where (spaces as '+') as Python's requests sends it.
        let plus = try await query("where=%7B%22channels%22%3A+%22even%22%7D&count=1&limit=0")
        #expect(plus["count"] == 3)

        #expect(try await f.master.send("DELETE", "/1.1/installations/\(ids[1])").status == 200)
        #expect(try await f.client.send("GET", "/1.1/installations/\(ids[1])").status == 404)
        let afterDelete = try await query("count=1&limit=0")
        #expect(afterDelete["count"] == 5)
    }

    static func sign(_ key: String, at date: Date) -> String {
        let ts = String(Int64(date.timeIntervalSince1970 * 1000))
        return MD5Hex.hash(ts + key) + "," + ts
    }
}
