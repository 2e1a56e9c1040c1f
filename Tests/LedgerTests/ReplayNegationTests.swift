import Foundation
import Ledger
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// A push targeted with `$nor` and a field-level `$not` (SPEC §12.1): targeting, replay at the targeting instant
/// and explain agree, and explain names the `$nor` clause that excluded an installation.
@Suite("Replay and explain $nor and $not", .requiresPostgreSQL)
struct ReplayNegationTests {
    @Test("targeting, replay and explain agree on $nor/$not, and explain names the matching $nor clause")
    func norAndNotAreTargetedReplayedAndExplained() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "x", appId: "negation")
        let meta = EventMetadata(keyKind: "master")
        var ids: [String: String] = [:]
        let people: [(String, [String: JSON])] = [
            ("gold", ["tier": "gold", "name": "ann"]),
            ("silver", ["tier": "silver", "name": "bob"]),
            ("untiered", ["name": "cat"]),
            ("beta", ["tier": ["silver", "gold"], "beta": true]),
            ("nameless", ["tier": "silver"]),
        ]
        for (n, (name, fields)) in people.enumerated() {
            var body = fields
            body["deviceType"] = "ios"
            body["deviceToken"] = .string(String(format: "%064x", n + 1))
            ids[name] = try await db.ledger.installations.save(appId: app.appId, body: body, metadata: meta).objectId
        }
        try await ReplayTestSupport.tick()

        let whereJSON: JSON = [
            "$nor": [["tier": "gold"], ["beta": true]], "name": ["$not": ["$regex": "^b"]],
        ]
        let now = Date()
        let request = try PushRequest.parse(
            ["where": whereJSON, "data": ["alert": "hello"]], devicesEndpoint: false, headerProd: nil, now: now)
        let pushId = try await db.ledger.pushes.request(request, app: app, metadata: meta, now: now).objectId
        let targeting = PushTargeting(store: db.ledger.events, pageSize: 2)
        while try await targeting.step(app: app, pushId: pushId, now: now.addingTimeInterval(0.01)) {}
        let (targeted, at) = try await ReplayTestSupport.targeted(db, app: app, pushId: pushId)
        let expected = [ids["untiered"]!, ids["nameless"]!].sorted()
        #expect(targeted == expected)

        let targetedAt = try #require(at)
        let replayed = try await Replayer(store: db.ledger.events).replay(
            app: app, at: targetedAt, whereJSON: whereJSON)
        #expect(replayed.objectIds == expected)

        let explainer = Explainer(store: db.ledger.events)
        let untiered = try await explainer.explain(app: app, pushId: pushId, objectId: ids["untiered"]!)
        #expect(untiered.matched)
        #expect(untiered.conditions.map(\.name).suffix(2) == ["where.$nor", "where.name"])
        #expect(untiered.conditions.last { $0.name == "where.$nor" }?.value == "matches none of its 2 clauses")

        let beta = try await explainer.explain(app: app, pushId: pushId, objectId: ids["beta"]!)
        #expect(beta.excludedBy?.name == "where.$nor")
        #expect(beta.excludedBy?.value == #"matches clause 1 {"tier":"gold"}; clause 2 {"beta":true}"#)

        let silver = try await explainer.explain(app: app, pushId: pushId, objectId: ids["silver"]!)
        #expect(silver.excludedBy?.name == "where.name")
        #expect(silver.excludedBy?.requirement == #"{"$not":{"$regex":"^b"}}"#)
        #expect(silver.excludedBy?.value == #""bob""#)
    }
}
