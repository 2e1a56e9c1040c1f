import Foundation
import PushCore
import TestSupport
import Testing

/// A server and a simulator, with app1 pointed at the simulator.
struct PushFixture {
    let db: TestDatabase
    let keys: ProviderKeys
    let simulator: SimulatorProcess
    var server: ServerProcess
    let client: TestHTTP
    var master: TestHTTP

    static func make(serverArguments: [String] = [], simulatorArguments: [String] = []) async throws -> PushFixture {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "one", appId: "app1", appKey: "key1", masterKey: "master1")
        let keys = try ProviderKeys.make()
        let simulator = try SimulatorProcess(keys: keys, extraArguments: simulatorArguments)
        let set = try ServerProcess.command(
            ["app", "set", "--app", "app1"] + keys.appSettings(simulator: simulator), databaseURL: db.url)
        guard set.status == 0 else { throw ServerFailure.didNotStart(set.output) }
        let server = try ServerProcess(databaseURL: db.url, extraArguments: serverArguments)
        return PushFixture(
            db: db, keys: keys, simulator: simulator, server: server,
            client: TestHTTP(baseURL: server.baseURL, headers: ["X-LC-Id": "app1", "X-LC-Key": "key1"]),
            master: TestHTTP(baseURL: server.baseURL, headers: ["X-LC-Id": "app1", "X-LC-Key": "master1,master"]))
    }

    func stop() {
        server.stop()
        simulator.stop()
    }

    @discardableResult
    func install(
        _ token: String, channels: [String] = ["news"], badge: Int? = nil, extra: [String: JSON] = [:]
    ) async throws -> String {
        var body: [String: JSON] = [
            "deviceType": "ios", "deviceToken": .string(token), "channels": .array(channels.map { .string($0) }),
        ]
        if let badge { body["badge"] = .int(Int64(badge)) }
        for (k, v) in extra { body[k] = v }
        let reply = try await client.send("POST", "/1.1/installations", json: .object(body))
        return try #require(reply.body["objectId"]?.stringValue, "\(reply.text)")
    }

    func push(_ body: JSON, path: String = "/1.1/push") async throws -> String {
        let reply = try await master.send("POST", path, json: body)
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(reply.body["objectId"]?.stringValue, "\(reply.text)")
    }

    /// Polls the push record until its status is final.
    func waitDone(_ id: String, timeout: TimeInterval = 60, as http: TestHTTP? = nil) async throws -> JSON {
        let master = http ?? self.master
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let record = try await master.send("GET", "/1.1/notifications/\(id)").body
            if let status = record["status"]?.stringValue, status != "in-queue", status != "scheduled" { return record }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("push \(id) did not finish in \(timeout) s")
        return try await master.send("GET", "/1.1/notifications/\(id)").body
    }
}

func hexToken(_ n: Int, prefix: String = "") -> String {
    let hex = String(format: "%064x", n)
    return prefix + String(hex.dropFirst(prefix.count))
}
