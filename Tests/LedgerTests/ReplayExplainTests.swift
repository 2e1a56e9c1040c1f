import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// Replay and explain against a push that really happened: installations change after the push, yet replay
/// at its targeting instant returns exactly the set it targeted, and explain names why each was in or out.
@Suite("Replay and explain a past push", .requiresPostgreSQL)
struct ReplayExplainTests {
    struct Scenario {
        let db: TestDatabase
        let app: App
        let pushId: String
        let targetedAt: Date
        let targeted: [String]
        let ids: [String: String]
    }

    /// a, b (android), f subscribe to `news` and are targeted; c lacks the channel, d is invalid, e is stale.
    /// After the push: a unsubscribes, c subscribes, f is deleted, g is created; b's delivery failed.
    static func scenario() async throws -> Scenario {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "x", appId: "explain")
        let meta = EventMetadata(keyKind: "master")
        var ids: [String: String] = [:]
        func ios(_ name: String, _ n: Int, _ extra: [String: JSON]) async throws {
            var body = extra
            body["deviceType"] = "ios"
            body["deviceToken"] = .string(String(format: "%064x", n))
            ids[name] = try await db.ledger.installations.save(appId: app.appId, body: body, metadata: meta).objectId
        }
        try await ios("a", 1, ["channels": ["news", "sports"]])
        ids["b"] = try await db.ledger.installations.save(
            appId: app.appId,
            body: [
                "deviceType": "android", "installationId": "iid-b", "registrationId": "reg-b", "channels": ["news"],
            ], metadata: meta
        ).objectId
        try await ios("c", 3, ["channels": ["sports"]])
        try await ios("d", 4, ["channels": ["news"], "valid": false])
        ids["e"] = try await ReplayTestSupport.createBackdated(
            db, app: app.appId,
            fields: [
                "deviceType": "ios", "deviceToken": .string(String(format: "%064x", 5)), "channels": ["news"],
            ], at: Date().addingTimeInterval(-100 * 86400))
        try await ios("f", 6, ["channels": ["news"]])
        try await ReplayTestSupport.tick()

        let now = Date()
        let request = try PushRequest.parse(
            ["channels": ["news"], "data": ["alert": "hello"]],
            devicesEndpoint: false, headerProd: nil, now: now)
        let pushId = try await db.ledger.pushes.request(request, app: app, metadata: meta, now: now).objectId
        let targeting = PushTargeting(store: db.ledger.events, pageSize: 2)
        // A moment after the request: send_at round-trips through PostgreSQL's microseconds.
        let targetingNow = now.addingTimeInterval(0.01)
        while try await targeting.step(app: app, pushId: pushId, now: targetingNow) {}
        let (targeted, at) = try await ReplayTestSupport.targeted(db, app: app, pushId: pushId)
        let targetedAt = try #require(at)

        let batches = PushBatches(store: db.ledger.events)
        while let claim = try await batches.claim(owner: "test") {
            try await batches.record(
                claim,
                outcomes: claim.targets.map {
                    $0.objectId == ids["b"] ? .failed(reason: "QuotaExceeded") : .delivered
                })
        }
        try await ReplayTestSupport.tick()
        _ = try await db.ledger.installations.update(
            appId: app.appId, objectId: ids["a"]!,
            body: ["channels": ["__op": "Remove", "objects": ["news"]]], metadata: meta)
        _ = try await db.ledger.installations.update(
            appId: app.appId, objectId: ids["c"]!,
            body: ["channels": ["__op": "AddUnique", "objects": ["news"]]], metadata: meta)
        try await db.ledger.installations.delete(appId: app.appId, objectId: ids["f"]!, metadata: meta)
        try await ios("g", 7, ["channels": ["news"]])
        return Scenario(db: db, app: app, pushId: pushId, targetedAt: targetedAt, targeted: targeted, ids: ids)
    }

    @Test("replay at the targeting instant returns what the push targeted then, although installations changed")
    func replayReturnsWhatWasTargeted() async throws {
        let s = try await Self.scenario()
        #expect(s.targeted == [s.ids["a"]!, s.ids["b"]!, s.ids["f"]!].sorted())
        let replayer = Replayer(store: s.db.ledger.events)
        let whereJSON: JSON = ["channels": ["$in": ["news"]]]
        for strategy in ReplayFoldStrategy.allCases {
            let then = try await replayer.replay(
                app: s.app, at: s.targetedAt, whereJSON: whereJSON,
                pushData: try PushData(["alert": "hello"]), strategy: strategy)
            #expect(then.objectIds == s.targeted, "\(strategy)")
        }
        let now = try await replayer.replay(app: s.app, at: Date(), whereJSON: whereJSON)
        #expect(now.objectIds == [s.ids["b"]!, s.ids["c"]!, s.ids["g"]!].sorted())
        // Platform content: a push with iOS content only would have skipped the Android installation b.
        let iosOnly = try await replayer.replay(
            app: s.app, at: s.targetedAt, whereJSON: whereJSON,
            pushData: try PushData(["ios": ["alert": "x"]]))
        #expect(iosOnly.objectIds == [s.ids["a"]!, s.ids["f"]!].sorted())
    }

    @Test("explain names the excluding condition and the delivery outcome")
    func explainNamesConditionAndOutcome() async throws {
        let s = try await Self.scenario()
        let explainer = Explainer(store: s.db.ledger.events)
        func explain(_ name: String) async throws -> Explanation {
            try await explainer.explain(app: s.app, pushId: s.pushId, objectId: s.ids[name]!)
        }
        let a = try await explain("a")
        #expect(a.matched)
        #expect(abs(a.instant.timeIntervalSince(s.targetedAt)) < 0.0005)
        #expect(a.conditions.map(\.name) == ["exists", "valid", "updatedAt", "deviceType", "where.channels"])
        guard case .delivered(batch: _, at: _) = a.delivery else {
            Issue.record("a: \(a.delivery)")
            return
        }
        #expect(a.laterEvents.map(\.type) == [InstallationEvent.updated])
        #expect(a.text.contains("TARGETED"))

        let b = try await explain("b")
        #expect(b.delivery == .failed(batch: b.deliveryBatch!, reason: "QuotaExceeded", at: b.deliveryAt!))
        #expect(b.text.contains("QuotaExceeded"))

        let c = try await explain("c")
        #expect(c.excludedBy?.name == "where.channels")
        #expect(c.excludedBy?.value == #"["sports"]"#)
        #expect(c.delivery == .notTargeted(note: nil))
        #expect(c.text.contains("EXCLUDED by: where.channels"))

        #expect(try await explain("d").excludedBy?.name == "valid")
        let e = try await explain("e")
        #expect(e.excludedBy?.name == "updatedAt")
        #expect(e.excludedBy?.value.contains("age 100.") == true)

        // Deleted since the push: still explained as it stood then.
        let f = try await explain("f")
        #expect(f.matched)
        #expect(f.laterEvents.last?.type == InstallationEvent.deleted)
        guard case .delivered = f.delivery else {
            Issue.record("f: \(f.delivery)")
            return
        }

        let g = try await explain("g")
        #expect(g.excludedBy?.name == "exists")
        #expect(g.excludedBy?.value == "not created yet")
        #expect(g.history.isEmpty)
        #expect(g.json["verdict"] == "excluded")
        #expect(g.json["excludedBy"] == "exists")

        await #expect(throws: Explainer.Failure.self) {
            try await explainer.explain(app: s.app, pushId: "nosuchpush", objectId: s.ids["a"]!)
        }
        await #expect(throws: Explainer.Failure.self) {
            try await explainer.explain(app: s.app, pushId: s.pushId, objectId: "nosuchinstallation")
        }
    }

    @Test("explain for /push/devices checks the installation's token against the device list")
    func explainDevicePush() async throws {
        let s = try await Self.scenario()
        let request = try PushRequest.parse(
            [
                "device_type": "ios", "device_ids": [.string(String(format: "%064x", 3))], "data": ["alert": "hi"],
            ], devicesEndpoint: true, headerProd: nil, now: Date())
        let pushId = try await s.db.ledger.pushes.request(request, app: s.app, metadata: .system("test")).objectId
        let explainer = Explainer(store: s.db.ledger.events)
        let c = try await explainer.explain(app: s.app, pushId: pushId, objectId: s.ids["c"]!)
        #expect(c.matched)
        #expect(c.conditions.map(\.name) == ["exists", "deviceType", "device_ids"])
        guard case .pending = c.delivery else {
            Issue.record("c: \(c.delivery)")
            return
        }
        let a = try await explainer.explain(app: s.app, pushId: pushId, objectId: s.ids["a"]!)
        #expect(a.excludedBy?.name == "device_ids")
        #expect(a.delivery == .notTargeted(note: nil))
    }
}

extension Explanation {
    var deliveryBatch: Int? {
        switch delivery {
        case .pending(let b), .delivered(let b, _), .failed(let b, _, _), .cancelled(let b), .waitingForDevice(let b),
            .acknowledged(let b, _):
            b
        case .notTargeted: nil
        }
    }

    var deliveryAt: Date? {
        switch delivery {
        case .delivered(_, let at), .failed(_, _, let at): at
        default: nil
        }
    }
}
