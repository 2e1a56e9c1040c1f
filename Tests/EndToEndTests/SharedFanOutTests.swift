import Foundation
import Ledger
import PushCore
import TestEnvironment
import TestSupport
import Testing

@Suite("Fan-out shared by several processes", .requiresPostgreSQL, .serialized)
struct SharedFanOutTests {
    static func bulkInstall(_ f: PushFixture, count: Int, offset: Int, channel: String) async throws {
        let store = f.db.ledger.installations
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in stride(from: worker, to: count, by: 8) {
                        _ = try await store.save(
                            appId: "app1",
                            body: [
                                "deviceType": "ios", "deviceToken": .string(String(format: "%064x", offset + i)),
                                "channels": .array([.string(channel)]),
                            ], metadata: EventMetadata(keyKind: "client"))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("two serve processes share one push's batches and the counts stay exact")
    func twoProcesses() async throws {
        try await HeavyTests.exclusive {
            let f = try await PushFixture.make(simulatorArguments: ["--latency-ms", "20"])
            defer { f.stop() }
            let second = try ServerProcess(databaseURL: f.db.url)
            defer { second.stop() }
            // Six batches, so that each process's four senders find some to claim.
            let devices = 6 * PushEvent.batchSize
            try await Self.bulkInstall(f, count: devices, offset: 0x200000, channel: "shared")
            let started = ContinuousClock.now
            let id = try await f.push(["channels": ["shared"], "data": ["alert": "both"]])
            let record = try await f.waitDone(id)
            let took = ContinuousClock.now - started
            #expect(record["devices"]?.intValue == Int64(devices))
            #expect(record["successes"]?.intValue == Int64(devices))
            let stats = try f.simulator.control("stats?tokens=0")
            #expect(stats["distinctTokens"]?.intValue == Int64(devices))
            // Counts are exact; provider-side re-sends (a request re-sent after its connection dropped or timed out,
            // see README "Not finished") must stay bounded by what the two processes can have in flight.
            let accepted = try #require(stats["apns"]?["accepted"]?.intValue)
            #expect(
                accepted >= Int64(devices) && accepted - Int64(devices) <= Int64(2 * PushEvent.batchSize),
                "accepted \(accepted) in \(took); simulator \(stats)")
            let owners = try await f.db.ledger.pool.query(
                "SELECT count(DISTINCT claimed_by) AS n FROM push_batches WHERE push_id = \(id)")[0].int("n")
            #expect(owners == 2, "both processes should have sent batches")
            #expect(ServerProcessRebuild.verify(f.db.url))
        }
    }

    @Test("a batch that takes longer than its lease stays with its live sender and is sent once")
    func slowBatchKeepsItsLease() async throws {
        try await HeavyTests.exclusive {
            // Every answer takes 5 s, longer than the 3 s lease; a second process polls for claimable batches.
            let lease = ["--batch-lease-seconds", "3"]
            let f = try await PushFixture.make(serverArguments: lease, simulatorArguments: ["--latency-ms", "5000"])
            defer { f.stop() }
            let second = try ServerProcess(databaseURL: f.db.url, extraArguments: lease)
            defer { second.stop() }
            try await Self.bulkInstall(f, count: 40, offset: 0x400000, channel: "slow")
            let id = try await f.push(["channels": ["slow"], "data": ["alert": "patience"]])
            let record = try await f.waitDone(id)
            #expect(record["successes"] == 40)
            let stats = try f.simulator.control("stats?tokens=0")
            #expect(stats["apns"]?["accepted"] == 40, "a batch taken over from its live sender is sent twice")
        }
    }

    @Test(
        "a provider that sends GOAWAY every 200 streams gets every notification exactly once",
        arguments: ServerTransports.all)
    func goAway(transport: String) async throws {
        try await HeavyTests.exclusive {
            let f = try await PushFixture.make(
                serverArguments: ServerTransports.arguments(transport), simulatorArguments: ["--goaway-after", "200"])
            defer { f.stop() }
            try await Self.bulkInstall(f, count: 2000, offset: 0x300000, channel: "goaway")
            let record = try await f.waitDone(try await f.push(["channels": ["goaway"], "data": ["alert": "again"]]))
            #expect(record["successes"] == 2000)
            let stats = try f.simulator.control("stats?tokens=0")
            #expect(stats["goAways"]?.intValue ?? 0 >= 5)
            #expect(stats["distinctTokens"] == 2000)
            // A GOAWAY costs no duplicate: every admitted stream is answered before the connection closes, and
            // the simulator lingers so its close cannot reset answers away (which libcurl would rightly re-send).
            #expect(stats["apns"]?["accepted"] == 2000)
        }
    }
}
