import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// Issue 13: one push's failure never holds up another; expiration as SPEC §4.1/§4.7; cancel keeps what
/// was in flight; work handed back is sent once. Time is moved by passing instants, never by sleeping.
@Suite("Fan-out failure isolation and expiration", .requiresPostgreSQL)
struct FanOutFailureTests {
    let meta = EventMetadata(keyKind: "master")

    func installs(_ db: TestDatabase, app: String, count: Int, channel: String = "c", from: Int = 1) async throws {
        _ = try await db.saveIOSInstallations(app: app, count: count, channels: [channel], firstToken: from)
    }

    func request(_ body: [String: JSON], now: Date) throws -> PushRequest {
        try PushRequest.parse(body, devicesEndpoint: false, headerProd: nil, now: now)
    }

    /// `devices` installations on channel `c`, then a push to them accepted and targeted (every page) at
    /// `now`, taken after the installations are saved: leases are judged against the real clock by `DELETE`.
    func targetedPush(_ db: TestDatabase, app: App, devices: Int) async throws -> (PushCommands.Accepted, Date) {
        try await installs(db, app: app.appId, count: devices)
        let now = Date()
        let accepted = try await db.ledger.pushes.request(
            try request(["channels": ["c"], "data": ["alert": "x"]], now: now), app: app, metadata: meta, now: now)
        // Pages (and batches) of 500, which the counts of these tests are written for.
        let targeting = PushTargeting(store: db.ledger.events, pageSize: 500)
        while try await targeting.step(app: app, pushId: accepted.objectId, now: now) {}
        return (accepted, now)
    }

    func record(_ db: TestDatabase, _ app: String, _ id: String) async throws -> JSON {
        try #require(try await db.ledger.pushQueries.get(appId: app, pushId: id)?.json)
    }

    @Test("push_time 20 s ahead with expiration_interval 5: accepted, expires 5 s after push_time, and is sent")
    func shortIntervalAfterPushTime() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "pill1")
        try await installs(db, app: app.appId, count: 3)
        let t0 = Date()
        let parsed = try request(
            [
                "channels": ["c"], "data": ["alert": "x"],
                "push_time": .string(LeanDate.format(t0.addingTimeInterval(20))),
                "expiration_interval": 5,
            ], now: t0)
        // Counted from push_time (SPEC §4.1), not from the request.
        #expect(abs(try #require(parsed.expiration).timeIntervalSince(t0.addingTimeInterval(25))) < 0.002)
        #expect(!parsed.isScheduled)
        let accepted = try await db.ledger.pushes.request(parsed, app: app, metadata: meta, now: t0)
        let targeting = PushTargeting(store: db.ledger.events)
        while try await targeting.step(app: app, pushId: accepted.objectId, now: t0.addingTimeInterval(1)) {}
        let r = try await record(db, app.appId, accepted.objectId)
        #expect(r["devices"] == 3)
        #expect(r["expiration_time"]?.stringValue == LeanDate.format(t0.addingTimeInterval(25)))
    }

    @Test("a scheduled push with an interval is sent at push_time, and an expired one never")
    func scheduledWithInterval() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "sched2")
        try await installs(db, app: app.appId, count: 4)
        let t0 = Date()
        let pushTime = t0.addingTimeInterval(3600)
        let body: [String: JSON] = [
            "channels": ["c"], "data": ["alert": "x"], "push_time": .string(LeanDate.format(pushTime)),
            "expiration_interval": 60,
        ]
        let onTime = try await db.ledger.pushes.request(try request(body, now: t0), app: app, metadata: meta, now: t0)
        let late = try await db.ledger.pushes.request(try request(body, now: t0), app: app, metadata: meta, now: t0)
        let targeting = PushTargeting(store: db.ledger.events)
        #expect(try await targeting.dueJobs(now: pushTime.addingTimeInterval(-1)).isEmpty)
        while try await targeting.step(app: app, pushId: onTime.objectId, now: pushTime.addingTimeInterval(1)) {}
        // The second one's worker comes back only after its expiration (push_time + 60 s).
        while try await targeting.step(app: app, pushId: late.objectId, now: pushTime.addingTimeInterval(61)) {}
        #expect(try await record(db, app.appId, onTime.objectId)["devices"] == 4)
        let expired = try await record(db, app.appId, late.objectId)
        #expect(expired["devices"] == 0)
        #expect(expired["status"] == "done")
        let types = try await db.ledger.pool.query(
            "SELECT type FROM events WHERE stream = \(PushEvent.stream(late.objectId)) ORDER BY version"
        ).map { $0["type"] ?? "" }
        #expect(types == [PushEvent.requested, PushEvent.expired])
        #expect(
            try await db.ledger.pool.query(
                "SELECT count(*) AS n FROM push_batches WHERE push_id = \(late.objectId)")[0].int("n") == 0)
    }

    @Test("a push_time in 2013 with a six-day interval is recorded as expired and never sent")
    func pastPushTimeExpires() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "old")
        try await installs(db, app: app.appId, count: 2)
        let now = Date()
        let parsed = try request(
            [
                "data": ["alert": "x"], "push_time": "2013-05-01T00:00:00.000Z", "expiration_interval": 518_400,
            ], now: now)
        #expect(parsed.expiration == LeanDate.parse("2013-05-07T00:00:00.000Z"))
        let accepted = try await db.ledger.pushes.request(parsed, app: app, metadata: meta, now: now)
        let targeting = PushTargeting(store: db.ledger.events)
        while try await targeting.step(app: app, pushId: accepted.objectId, now: now) {}
        let r = try await record(db, app.appId, accepted.objectId)
        #expect(r["devices"] == 0)
        #expect(r["status"] == "done")
        // The /push/devices shape is refused at once too: nothing is leased.
        let devices = try PushRequest.parse(
            [
                "device_type": "ios", "device_ids": [.string(String(format: "%064x", 1))], "data": ["alert": "x"],
                "push_time": "2013-05-01T00:00:00.000Z", "expiration_interval": 60,
            ], devicesEndpoint: true, headerProd: nil, now: now)
        let sent = try await db.ledger.pushes.request(devices, app: app, metadata: meta, now: now)
        #expect(try await record(db, app.appId, sent.objectId)["status"] == "done")
        #expect(try await PushBatches(store: db.ledger.events).claim(owner: "t", now: now) == nil)
    }

    @Test("an invalid $regex is code 102 when the push arrives, and nothing is recorded")
    func invalidRegexRefused() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "rx")
        let before = try await db.eventCount()
        let parsed = try request(["data": ["alert": "x"], "where": ["tag": ["$regex": "("]]], now: Date())
        await #expect(throws: LeanError.self) {
            _ = try await db.ledger.pushes.request(parsed, app: app, metadata: meta)
        }
        do {
            _ = try await db.ledger.pushes.request(parsed, app: app, metadata: meta)
        } catch let error as LeanError {
            #expect(error.code == 102)
        }
        #expect(try await db.eventCount() == before)
        #expect(try await db.ledger.pool.query("SELECT count(*) AS n FROM push_jobs")[0].int("n") == 0)
    }

    @Test("a job whose stored request no longer reads ends failed with its reason; the other app's push goes on")
    func poisonJobFailsAlone() async throws {
        let db = try await TestDatabase.make()
        let bad = try await db.ledger.apps.create(name: "bad", appId: "badapp")
        let good = try await db.ledger.apps.create(name: "good", appId: "goodapp")
        try await installs(db, app: good.appId, count: 2)
        let now = Date()
        let poison = try await db.ledger.pushes.request(
            try request(["data": ["alert": "x"]], now: now), app: bad, metadata: meta, now: now)
        // A row written by an older version that today's parser refuses.
        try await db.ledger.pool.query(
            "UPDATE push_jobs SET request = '{\"data\": null}'::jsonb WHERE push_id = \(poison.objectId)")
        let fine = try await db.ledger.pushes.request(
            try request(["data": ["alert": "y"]], now: now.addingTimeInterval(1)), app: good, metadata: meta,
            now: now.addingTimeInterval(1))
        let targeting = PushTargeting(store: db.ledger.events)
        // The poison job is first in the due order; it fails, the next one is still targeted in the same round.
        #expect(try await targeting.dueJobs(now: now.addingTimeInterval(2)).first?.pushId == poison.objectId)
        do {
            _ = try await targeting.step(app: bad, pushId: poison.objectId, now: now.addingTimeInterval(2))
            Issue.record("the poison job should throw")
        } catch {
            let decision = try await targeting.recordFailure(
                appId: bad.appId, pushId: poison.objectId, error: error, now: now.addingTimeInterval(2))
            guard case .fail = decision else {
                Issue.record("a parse failure is permanent: \(decision)")
                return
            }
        }
        while try await targeting.step(app: good, pushId: fine.objectId, now: now.addingTimeInterval(2)) {}
        #expect(try await targeting.dueJobs(now: now.addingTimeInterval(3)).isEmpty)
        let failed = try await record(db, bad.appId, poison.objectId)
        #expect(failed["status"]?.stringValue == "failed: Missing push data.")
        #expect(try await record(db, good.appId, fine.objectId)["devices"] == 2)
    }

    @Test("a transient failure backs off (out of the due queue) and ends failed after the policy's attempts")
    func transientFailureBacksOff() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "flaky")
        let now = Date()
        let accepted = try await db.ledger.pushes.request(
            try request(["data": ["alert": "x"]], now: now), app: app, metadata: meta, now: now)
        let targeting = PushTargeting(store: db.ledger.events)
        let policy = FanOutFailurePolicy(maxAttempts: 3, baseDelay: .seconds(10), maxDelay: .seconds(60))
        struct Flaky: Error {}
        var t = now
        for attempt in 1...2 {
            let decision = try await targeting.recordFailure(
                appId: app.appId, pushId: accepted.objectId, error: Flaky(), policy: policy, now: t, random: 1)
            let expected = Duration.seconds(10 * (1 << (attempt - 1)))
            #expect(decision == .retry(after: expected, attempts: attempt))
            #expect(try await targeting.dueJobs(now: t.addingTimeInterval(1)).isEmpty, "backing off, not due")
            t = t.addingTimeInterval(Double(expected.components.seconds))
            #expect(try await targeting.dueJobs(now: t).map(\.pushId) == [accepted.objectId])
        }
        let last = try await targeting.recordFailure(
            appId: app.appId, pushId: accepted.objectId, error: Flaky(), policy: policy, now: t, random: 1)
        guard case .fail(let status) = last else {
            Issue.record("expected the push to fail: \(last)")
            return
        }
        #expect(status.hasPrefix("failed: internal error"))
        #expect(try await record(db, app.appId, accepted.objectId)["status"]?.stringValue == status)
        #expect(try await targeting.dueJobs(now: t.addingTimeInterval(3600)).isEmpty)
    }

    @Test("DELETE mid-send: the leased batch's outcomes still count, the rest is cancelled and never leased")
    func cancelKeepsInFlightOutcomes() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "cancel")
        let (accepted, now) = try await targetedPush(db, app: app, devices: 1200)
        let batches = PushBatches(store: db.ledger.events)
        let leased = try #require(try await batches.claim(owner: "sender-1", now: now))
        try await db.ledger.pushes.delete(appId: app.appId, pushId: accepted.objectId, metadata: meta)
        // The job is cancelled: the two unleased batches are gone, the leased one is still to be recorded.
        #expect(try await batches.jobState(appId: app.appId, pushId: accepted.objectId) == .cancelled)
        #expect(try await batches.claim(owner: "sender-2", now: now) == nil)
        // 300 answered before the sender saw the cancel; 200 never left.
        let outcomes = leased.targets.indices.map { $0 < 300 ? TargetOutcome.delivered : .notSent }
        #expect(try await batches.record(leased, outcomes: outcomes, now: now) != nil)
        let delivered = try await db.ledger.pool.query(
            """
            SELECT sum((data->>'successes')::int) AS s, sum((data->>'errors')::int) AS e,
                   sum((data->'reasons'->>'Cancelled')::int) AS c
            FROM events WHERE stream = \(PushEvent.stream(accepted.objectId)) AND type = 'PushBatchDelivered'
            """)[0]
        #expect(try delivered.int("s") == 300)
        #expect(try delivered.int("c") == 200)
        #expect(
            try await db.ledger.pool.query(
                "SELECT count(*) AS n FROM push_batches WHERE push_id = \(accepted.objectId) AND state = 'pending'")[0]
                .int("n") == 0)
    }

    @Test("targets a sender could not send while the push is live go back to the queue and are sent once")
    func handBack() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "handback")
        let (accepted, now) = try await targetedPush(db, app: app, devices: 10)
        let batches = PushBatches(store: db.ledger.events)
        let first = try #require(try await batches.claim(owner: "a", now: now))
        try await batches.record(
            first, outcomes: first.targets.indices.map { $0 < 4 ? .delivered : .notSent }, now: now)
        #expect(try await record(db, app.appId, accepted.objectId)["status"] == "in-queue")
        let second = try #require(try await batches.claim(owner: "b", now: now))
        #expect(second.targets.map(\.token) == Array(first.targets.dropFirst(4)).map(\.token))
        try await batches.record(second, outcomes: second.targets.map { _ in .delivered }, now: now)
        let r = try await record(db, app.appId, accepted.objectId)
        #expect(r["status"] == "done")
        #expect(r["devices"] == 10)
        #expect(r["successes"] == 10)
        #expect(r["errors"] == 0)
        #expect(try await db.ledger.rebuilder().run(verify: true).differences.isEmpty)
    }

    @Test("a push-level failure ends the push with its reason, per-reason counts, and cancels its other batches")
    func pushLevelFailure() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "topic")
        let (accepted, now) = try await targetedPush(db, app: app, devices: 700)
        let batches = PushBatches(store: db.ledger.events)
        let claim = try #require(try await batches.claim(owner: "a", now: now))
        let outcomes = claim.targets.indices.map { $0 < 2 ? TargetOutcome.failed(reason: "TopicDisallowed") : .notSent }
        try await batches.record(
            claim, outcomes: outcomes, pushFailure: "APNs refused the push: TopicDisallowed", now: now)
        let r = try await record(db, app.appId, accepted.objectId)
        #expect(r["status"] == "failed: APNs refused the push: TopicDisallowed")
        #expect(r["errorReasons"] == ["TopicDisallowed": 2, "PushFailed": 498])
        #expect(try await batches.claim(owner: "b", now: now) == nil)
        #expect(try await db.ledger.rebuilder().run(verify: true).differences.isEmpty)
    }

    @Test("badge Increment on a badge at Int64.max saturates instead of trapping the fan-out (a crash loop before)")
    func badgeIncrementSaturates() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "maxbadge")
        _ = try await db.ledger.installations.save(
            appId: app.appId,
            body: [
                "deviceType": "ios", "deviceToken": .string(String(format: "%064x", 7)), "channels": ["maxb"],
                "badge": .int(.max),
            ], metadata: meta)
        let now = Date()
        let accepted = try await db.ledger.pushes.request(
            try request(["channels": ["maxb"], "data": ["alert": "x", "badge": "Increment"]], now: now), app: app,
            metadata: meta, now: now)
        let targeting = PushTargeting(store: db.ledger.events)
        while try await targeting.step(app: app, pushId: accepted.objectId, now: now.addingTimeInterval(1)) {}
        let claim = try #require(try await PushBatches(store: db.ledger.events).claim(owner: "t", now: now))
        #expect(claim.targets.map(\.badge) == [.max])
    }

    @Test("flow_control is one budget per push in the database, shared by every sender")
    func sharedFlowBudget() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "flow")
        let now = Date()
        let accepted = try await db.ledger.pushes.request(
            try request(["data": ["alert": "x"]], now: now), app: app, metadata: meta, now: now)
        let batches = PushBatches(store: db.ledger.events)
        // Shares of 30 s and 60 s: long enough that the calls themselves (even on a loaded machine) fall
        // inside the previous share, so each reservation starts exactly where the previous one ends.
        let a = try await batches.reserveFlow(appId: app.appId, pushId: accepted.objectId, count: 30_000, rate: 1000)
        let b = try await batches.reserveFlow(appId: app.appId, pushId: accepted.objectId, count: 60_000, rate: 1000)
        let c = try await batches.reserveFlow(appId: app.appId, pushId: accepted.objectId, count: 500, rate: 1000)
        #expect(abs(b.timeIntervalSince(a) - 30) < 0.001)
        #expect(abs(c.timeIntervalSince(b) - 60) < 0.001)
    }
}

extension BatchClaim: Equatable {
    public static func == (lhs: BatchClaim, rhs: BatchClaim) -> Bool {
        lhs.appId == rhs.appId && lhs.pushId == rhs.pushId && lhs.batchNo == rhs.batchNo
    }
}
