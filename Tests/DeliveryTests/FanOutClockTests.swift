import Delivery
import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// The whole fan-out (targeting loop, senders, real HTTP/2 to the simulator) running on a `TestClock`: its
/// loops' waits end only when the test moves the time, so the test knows when they are idle and waits for
/// neither a poll interval nor push_time.
@Suite("Fan-out on a moved clock", .requiresPostgreSQL, .serialized)
struct FanOutClockTests {
    @Test("a scheduled push with an interval is delivered once push_time comes; an expired one is never sent")
    func scheduledAndExpiredOnMovedClock() async throws {
        let clock = TestClock()
        let db = try await TestDatabase.make(clock: clock.serviceClock)
        let keys = try ProviderKeys.make()
        let simulator = try SimulatorProcess(keys: keys)
        defer { simulator.stop() }
        let app = try await db.ledger.apps.create(name: "clock", appId: "clockApp")
        let settings = keys.appSettings(simulator: simulator).map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts[1])
        }
        try await db.ledger.apps.set(appId: app.appId, settings)
        let tokens = (1...4).map { String(format: "%064x", 0xC10C_0000 + $0) }
        for token in tokens {
            _ = try await db.ledger.installations.save(
                appId: app.appId,
                body: [
                    "deviceType": "ios", "deviceToken": .string(token), "channels": ["c"],
                ], metadata: EventMetadata(keyKind: "master"))
        }
        let t0 = clock.now()
        let pushTime = LeanDate.format(t0.addingTimeInterval(3600))
        func schedule(interval: Int64) async throws -> String {
            let request = try PushRequest.parse(
                [
                    "channels": ["c"], "data": ["alert": "tick"], "push_time": .string(pushTime),
                    "expiration_interval": .int(interval),
                ],
                devicesEndpoint: false, headerProd: nil, now: clock.now())
            #expect(request.isScheduled)
            let found = try #require(try await db.ledger.appDirectory.find(app.appId))
            return try await db.ledger.pushes.request(request, app: found, metadata: EventMetadata(keyKind: "master"))
                .objectId
        }
        let sent = try await schedule(interval: 600)  // expires at push_time + 10 min
        let expired = try await schedule(interval: 60)  // expires at push_time + 1 min

        let fanOut = FanOutService(
            events: db.ledger.events, apps: db.ledger.appDirectory,
            providers: ProviderRegistry(clock: clock.serviceClock),
            wakeups: WakeSignal(clock: clock.serviceClock), senders: 2)
        let running = Task { try await fanOut.run() }
        defer { running.cancel() }

        // The targeting loop and both senders have gone round and wait on the clock, an hour before
        // push_time: nothing went out.
        try await clock.waitForSleepers(3)
        for token in tokens { #expect(try simulator.requests(token: token)["accepted"] == 0) }
        #expect(try await db.ledger.pushQueries.get(appId: app.appId, pushId: sent)?.json["status"] == "scheduled")

        // Two minutes past push_time: the first is due and still valid, the second expired a minute ago.
        clock.advance(by: .seconds(3600 + 120))
        let deadline = ContinuousClock.now + .seconds(30)
        var record: JSON = [:]
        while ContinuousClock.now < deadline {
            record = try #require(try await db.ledger.pushQueries.get(appId: app.appId, pushId: sent)?.json)
            let other = try await db.ledger.pushQueries.get(appId: app.appId, pushId: expired)?.json
            if record["status"] == "done", other?["status"] == "done" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(record["status"] == "done")
        #expect(record["successes"] == 4)
        // Each device got exactly one request: the first push's, never the expired one's.
        for token in tokens { #expect(try simulator.requests(token: token)["accepted"] == 1, "token \(token)") }

        let expiredRecord = try #require(try await db.ledger.pushQueries.get(appId: app.appId, pushId: expired)?.json)
        #expect(expiredRecord["devices"] == 0)
        #expect(expiredRecord["successes"] == 0)
        let types = try await db.ledger.pool.query(
            "SELECT type FROM events WHERE stream = \(PushEvent.stream(expired)) ORDER BY version"
        ).map { try $0.string("type") }
        #expect(types == [PushEvent.requested, PushEvent.expired])
    }
}
