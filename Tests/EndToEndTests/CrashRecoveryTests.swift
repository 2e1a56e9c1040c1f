import Foundation
import Ledger
import PushCore
import TestSupport
import Testing

@Suite("Crash recovery of the fan-out", .enabled(if: TestDatabase.isAvailable), .serialized)
struct CrashRecoveryTests {
    @Test("after SIGKILL mid-push and a restart, every target is delivered and the counts are exact")
    func killMidPush() async throws {
        try await HeavyTests.exclusive {
            let targets = 20_000
            // One sender and slow provider answers, so the kill lands in the middle of the fan-out.
            let serverArguments = ["--senders", "1", "--batch-lease-seconds", "3"]
            var f = try await PushFixture.make(
                serverArguments: serverArguments, simulatorArguments: ["--latency-ms", "150"])
            defer { f.stop() }
            let store = f.db.ledger.installations
            let meta = EventMetadata(keyKind: "client", address: "127.0.0.1")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        for i in stride(from: worker, to: targets, by: 16) {
                            _ = try await store.save(
                                appId: "app1",
                                body: [
                                    "deviceType": "ios", "deviceToken": .string(String(format: "%064x", 0x100000 + i)),
                                    "channels": ["crash"],
                                ], metadata: meta)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let id = try await f.push(["channels": ["crash"], "data": ["alert": "survive"]])

            // Kill once some but not all devices have been delivered.
            var partial = JSON.null
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                partial = try await f.master.send("GET", "/1.1/notifications/\(id)").body
                if let s = partial["successes"]?.intValue, s >= 2000 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            f.server.kill()
            let successesAtKill = try #require(partial["successes"]?.intValue)
            #expect(successesAtKill < Int64(targets), "the kill must land mid-push")

            f.server = try ServerProcess(databaseURL: f.db.url, extraArguments: serverArguments)
            f.master = TestHTTP(baseURL: f.server.baseURL, headers: f.master.headers)
            let record = try await f.waitDone(id, timeout: 180)
            #expect(record["status"] == "done")
            #expect(record["devices"]?.intValue == Int64(targets))
            #expect(record["successes"]?.intValue == Int64(targets))
            #expect(record["errors"] == 0)

            // Every target reached the provider; re-sends are bounded by the batches in flight at the kill.
            let stats = try f.simulator.control("stats?tokens=0")
            #expect(stats["distinctTokens"]?.intValue == Int64(targets))
            let accepted = try #require(stats["apns"]?["accepted"]?.intValue)
            #expect(accepted >= Int64(targets))
            #expect(accepted - Int64(targets) <= Int64(PushEvent.batchSize), "duplicates: \(accepted - Int64(targets))")
            let batches = try await f.db.ledger.pool.query(
                "SELECT count(*) AS n, count(DISTINCT data->>'batch') AS d FROM events WHERE type = 'PushBatchDelivered'"
            )[0]
            #expect(try batches.int("n") == targets / PushEvent.batchSize)
            #expect(try batches.int("d") == targets / PushEvent.batchSize)
            #expect(ServerProcessRebuild.verify(f.db.url))
        }
    }
}
