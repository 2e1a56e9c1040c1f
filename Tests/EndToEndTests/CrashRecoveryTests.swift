import Foundation
import Ledger
import PushCore
import TestEnvironment
import TestSupport
import Testing

@Suite("Crash recovery of the fan-out", .requiresPostgreSQL, .serialized)
struct CrashRecoveryTests {
    /// The default `serve` settings: 4 senders, each with a window of 500 requests in flight or answered and
    /// not yet recorded (docs/fanout.md). What a `kill -9` can make a restart send again is bounded by that.
    static let duplicateBound = 4 * 500

    @Test(
        """
        after SIGKILL at about a third of a 20,000-device push, with the default senders, a fast provider and both \
        cores busy with other processes, every target is delivered, the counts are exact and the re-sends stay \
        within senders × window, every time
        """, arguments: ServerTransports.all)
    func killMidPush(transport: String) async throws {
        try await HeavyTests.exclusive {
            let targets = 20_000
            // The default senders and window; a short lease only makes the restart take the batches over sooner.
            let serverArguments = ["--batch-lease-seconds", "3"] + ServerTransports.arguments(transport)
            var f = try await PushFixture.make(serverArguments: serverArguments)
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
            // Other processes keep both cores busy, as a loaded machine would: the sender must not let recording
            // fall behind sending whatever the load.
            let spinners = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in CPUSpinner() }
            defer { for spinner in spinners { spinner.stop() } }
            var duplicates: [Int64] = []
            for run in 1...3 {
                let acceptedBefore = try f.simulator.control("stats?tokens=0")["apns"]?["accepted"]?.intValue ?? 0
                let id = try await f.push(["channels": ["crash"], "data": ["alert": .string("survive \(run)")]])
                var partial = JSON.null
                let deadline = Date().addingTimeInterval(120)
                while Date() < deadline {
                    partial = try await f.master.send("GET", "/1.1/notifications/\(id)").body
                    if let s = partial["successes"]?.intValue, s >= Int64(targets / 3) { break }
                    try await Task.sleep(for: .milliseconds(10))
                }
                f.server.kill()
                let successesAtKill = try #require(partial["successes"]?.intValue)
                #expect(successesAtKill < Int64(targets), "run \(run): the kill must land mid-push")

                f.server = try ServerProcess(databaseURL: f.db.url, extraArguments: serverArguments)
                f.master = TestHTTP(baseURL: f.server.baseURL, headers: f.master.headers)
                let record = try await f.waitDone(id, timeout: 180)
                #expect(record["status"] == "done")
                #expect(record["devices"]?.intValue == Int64(targets))
                #expect(record["successes"]?.intValue == Int64(targets), "run \(run)")
                #expect(record["errors"] == 0)
                // Every target reached the provider; what it accepted beyond them is what the crash re-sent.
                let stats = try f.simulator.control("stats?tokens=0")
                #expect(stats["distinctTokens"]?.intValue == Int64(targets))
                let accepted = try #require(stats["apns"]?["accepted"]?.intValue) - acceptedBefore
                #expect(accepted >= Int64(targets))
                duplicates.append(accepted - Int64(targets))
                #expect(
                    accepted - Int64(targets) <= Int64(Self.duplicateBound),
                    "run \(run): \(accepted - Int64(targets)) devices got the push twice")
                // Recorded in parts, each batch's targets exactly once.
                let batches = try await f.db.ledger.pool.query(
                    """
                    SELECT count(DISTINCT data->>'batch') AS d,
                           sum((data->>'successes')::bigint) AS s
                    FROM events WHERE type = 'PushBatchDelivered' AND stream = \("push:" + id)
                    """
                )[0]
                #expect(try batches.int("d") >= targets / PushEvent.batchSize)
                #expect(try batches.int64("s") == Int64(targets))
            }
            print(
                "CrashRecoveryTests: devices sent twice after each kill: \(duplicates) (bound \(Self.duplicateBound))")
            #expect(ServerProcessRebuild.verify(f.db.url))
        }
    }
}

/// A process that spins on one core until stopped (its own pid, ended by us).
final class CPUSpinner: @unchecked Sendable {
    private let process = Process()

    init() {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "while :; do :; done"]
        try? process.run()
    }

    /// SIGKILL: a shell busy in a loop of builtins does not act on SIGTERM.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
