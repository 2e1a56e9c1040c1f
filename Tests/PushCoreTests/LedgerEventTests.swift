import Testing

@testable import PushCore

/// The typed log's installation events and its families: each kind's payload writes the very JSON the log has
/// always stored for it (written out by hand here, key by key, as the writers stored it before payloads were
/// typed), reads back to the same value, and still reads the older or partial shapes the log holds.
@Suite struct LedgerEventTests {
    static let at = "2026-03-01T10:00:00.000Z"

    @Test("every installation kind writes its stored shape and reads back to itself")
    func installationKindsRoundTrip() throws {
        let cases: [(InstallationLogEvent, JSON)] = [
            (
                .created(InstallationCreated(objectId: "i1", fields: ["deviceType": "ios", "badge": 2], at: Self.at)),
                [
                    "objectId": "i1", "fields": ["deviceType": "ios", "badge": 2], "createdAt": .string(Self.at),
                    "updatedAt": .string(Self.at),
                ]
            ),
            (
                .updated(
                    InstallationUpdated(objectId: "i1", set: ["channels": ["a"]], unset: ["x"], updatedAt: Self.at)),
                ["objectId": "i1", "set": ["channels": ["a"]], "unset": ["x"], "updatedAt": .string(Self.at)]
            ),
            (
                .updated(
                    InstallationUpdated(
                        objectId: "i1", set: ["valid": false], unset: [], updatedAt: "2026-01-01T00:00:00.000Z",
                        at: Self.at, invalidatedBy: .init(reason: "Unregistered", token: "t1"))),
                [
                    "objectId": "i1", "set": ["valid": false], "unset": [], "updatedAt": "2026-01-01T00:00:00.000Z",
                    "at": .string(Self.at), "invalidatedBy": ["reason": "Unregistered", "token": "t1"],
                ]
            ),
            (
                .badgeReset(BadgeChanged(objectId: "i1", resetAt: Self.at)),
                ["objectId": "i1", "updatedAt": .string(Self.at)]
            ),
            (
                .badgeIncremented(BadgeChanged(objectId: "i1", badge: 7, at: Self.at)),
                ["objectId": "i1", "badge": 7, "at": .string(Self.at)]
            ),
            (
                .opened(
                    AppOpened(
                        objectId: "i1", at: Self.at, updatedAt: Self.at, kind: "push", platform: "android",
                        pushId: "p1", attribution: "explicit", deliveredAt: "2026-03-01T09:00:00.000Z")),
                [
                    "objectId": "i1", "at": .string(Self.at), "updatedAt": .string(Self.at), "kind": "push",
                    "platform": "android", "pushId": "p1", "attribution": "explicit",
                    "deliveredAt": "2026-03-01T09:00:00.000Z",
                ]
            ),
            (
                .opened(
                    AppOpened(
                        objectId: "i1", at: Self.at, updatedAt: Self.at, kind: "app", platform: "ios", pushId: nil,
                        attribution: nil, deliveredAt: nil)),
                [
                    "objectId": "i1", "at": .string(Self.at), "updatedAt": .string(Self.at), "kind": "app",
                    "platform": "ios",
                ]
            ),
            (
                .deleted(InstallationRemoved(objectId: "i1", reason: "api", at: Self.at)),
                ["objectId": "i1", "reason": "api", "at": .string(Self.at)]
            ),
            (
                .expired(
                    InstallationRemoved(
                        objectId: "i1", reason: "stale", at: Self.at, lastUpdatedAt: "2025-01-01T00:00:00.000Z")),
                [
                    "objectId": "i1", "reason": "stale", "at": .string(Self.at),
                    "lastUpdatedAt": "2025-01-01T00:00:00.000Z",
                ]
            ),
            (
                .invalidated(
                    InstallationInvalidated(
                        objectId: "", token: "t1", reason: "BadDeviceToken", since: Self.at, at: Self.at)),
                [
                    "objectId": "", "token": "t1", "reason": "BadDeviceToken", "since": .string(Self.at),
                    "at": .string(Self.at),
                ]
            ),
        ]
        for (event, stored) in cases {
            #expect(event.json.encoded() == stored.encoded(), "\(event.type)")
            #expect(try InstallationLogEvent(type: event.type, json: stored) == event)
            #expect(try LedgerEvent(type: event.type, data: stored) == .installation(event))
            #expect(event.objectId == stored["objectId"]?.stringValue)
        }
        #expect(Set(cases.map(\.0.type)) == InstallationEvent.all)
    }

    @Test("older and partial shapes read; a missing required field is malformed data of its kind")
    func partialShapes() throws {
        // An update without updatedAt, an invalidation without an installation: both were written.
        let update = try InstallationLogEvent(
            type: InstallationEvent.updated, json: ["objectId": "i1", "set": ["a": 1]])
        guard case .updated(let read) = update else {
            Issue.record("not an update")
            return
        }
        #expect(read.objectId == "i1" && read.set == ["a": 1] && read.unset.isEmpty && read.updatedAt == nil)
        let invalidated = try InstallationLogEvent(
            type: InstallationEvent.invalidated, json: ["token": "t", "reason": "BadDeviceToken"])
        #expect(invalidated?.objectId == "")
        #expect(throws: MalformedPayload.self) {
            try InstallationLogEvent(type: InstallationEvent.created, json: ["objectId": "i1", "fields": [:]])
        }
        #expect(throws: MalformedPayload.self) {
            try LedgerEvent(type: InstallationEvent.opened, data: ["objectId": "i1"])
        }
    }

    @Test("families: push and installation types are typed, every other type is kept as it was written")
    func families() throws {
        let completed = PushMilestone(objectId: "p1", at: Self.at)
        #expect(try LedgerEvent(type: PushEvent.completed, data: completed.json) == .push(.completed(completed)))
        let object: JSON = ["className": "Team", "objectId": "o1"]
        #expect(try LedgerEvent(type: "ObjectCreated", data: object) == .other(type: "ObjectCreated", data: object))
        #expect(LedgerEvent.isTyped(PushEvent.targeted) && LedgerEvent.isTyped(InstallationEvent.opened))
        #expect(!LedgerEvent.isTyped("ObjectCreated") && !LedgerEvent.isTyped("UsageDayClosed"))
    }

    @Test("a page of targets reads whole or counted; counted data (the rebuild scan's) reads counted only")
    func targetReading() throws {
        let targets = (0..<3).map {
            PushTarget(objectId: "i\($0)", deviceType: "ios", token: "t\($0)", profile: nil, badge: nil)
        }
        let page = PushTargeted(objectId: "p1", batch: 4, targets: targets, at: Self.at)
        #expect(try LedgerEvent(type: PushEvent.targeted, data: page.json) == .push(.targeted(page)))
        guard
            case .push(.targeted(let counted)) = try LedgerEvent(
                type: PushEvent.targeted, data: page.json, targets: .counted)
        else {
            Issue.record("not a page")
            return
        }
        #expect(counted.devices == 3 && counted.targets.isEmpty && counted.batch == 4 && counted.objectId == "p1")
        guard
            case .push(.targeted(let scanned)) = try LedgerEvent(
                type: PushEvent.targeted, data: page.countedJSON, targets: .counted)
        else {
            Issue.record("not a page")
            return
        }
        #expect(scanned == counted)
        #expect(throws: MalformedPayload.self) { try LedgerEvent(type: PushEvent.targeted, data: page.countedJSON) }
    }
}
