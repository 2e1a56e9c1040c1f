import Testing

@testable import PushCore

/// The typed log's families: each kind's payload writes the very JSON the log has
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

    @Test("every app, object, presence and usage kind writes its stored shape and reads back to itself")
    func otherFamiliesRoundTrip() throws {
        let created = ObjectCreated(
            className: "Team", objectId: "o1", fields: ["name": "a", "home": ["__type": "GeoPoint"]],
            types: ["name": .string, "owner": .pointer(className: "_User")], at: Self.at)
        let createdJSON: JSON = [
            "className": "Team", "objectId": "o1", "fields": ["name": "a", "home": ["__type": "GeoPoint"]],
            "types": ["name": "String", "owner": "Pointer<_User>"], "createdAt": .string(Self.at),
            "updatedAt": .string(Self.at),
        ]
        let updated = ObjectUpdated(
            className: "_User", objectId: "u1", set: ["age": 3], unset: ["nick"], types: ["age": .number], at: Self.at)
        let updatedJSON: JSON = [
            "className": "_User", "objectId": "u1", "set": ["age": 3], "unset": ["nick"], "types": ["age": "Number"],
            "updatedAt": .string(Self.at),
        ]
        let signedUp = ObjectCreated(className: "_User", objectId: "u1", fields: [:], types: [:], at: Self.at)
        let connected = PresenceChanged(objectId: "i1", installationId: "iid", session: "s1", at: Self.at)
        let cases: [(LedgerEvent, JSON)] = [
            (
                .app(.created(AppCreated(name: "n", appKey: "k", masterKey: "m", settings: [:], createdAt: Self.at))),
                ["name": "n", "appKey": "k", "masterKey": "m", "settings": [:], "createdAt": .string(Self.at)]
            ),
            (
                .app(.settingsChanged(AppSettingsChanged(set: ["timezone": "Asia/Shanghai"], unset: ["x"]))),
                ["set": ["timezone": "Asia/Shanghai"], "unset": ["x"]]
            ),
            (.object(.creation(created)), createdJSON),
            (.object(.update(updated)), updatedJSON),
            (
                .object(.creation(signedUp)),
                [
                    "className": "_User", "objectId": "u1", "fields": [:], "types": [:], "createdAt": .string(Self.at),
                    "updatedAt": .string(Self.at),
                ]
            ),
            (
                .object(
                    .update(
                        ObjectUpdated(className: "Team", objectId: "o1", set: [:], unset: [], types: [:], at: Self.at))),
                [
                    "className": "Team", "objectId": "o1", "set": [:], "unset": [], "types": [:],
                    "updatedAt": .string(Self.at),
                ]
            ),
            (
                .object(.deleted(ObjectDeleted(className: "Team", objectId: "o1", at: Self.at))),
                ["className": "Team", "objectId": "o1", "at": .string(Self.at)]
            ),
            (
                .presence(.connected(connected)),
                ["objectId": "i1", "installationId": "iid", "session": "s1", "at": .string(Self.at)]
            ),
            (
                .presence(
                    .disconnected(
                        PresenceChanged(
                            objectId: "i1", installationId: "iid", session: "s1", at: Self.at, reason: "timeout"))),
                [
                    "objectId": "i1", "installationId": "iid", "session": "s1", "at": .string(Self.at),
                    "reason": "timeout",
                ]
            ),
            (
                .usage(
                    .rateLimited(
                        PushRateLimited(at: Self.at, bannedUntil: "2026-03-01T10:01:00.000Z", limit: 5, calls: 6))),
                ["at": .string(Self.at), "bannedUntil": "2026-03-01T10:01:00.000Z", "limit": 5, "calls": 6]
            ),
            (
                .usage(.quotaRefused(PushQuotaRefused(at: Self.at, quota: 10, used: 10))),
                ["at": .string(Self.at), "quota": 10, "used": 10]
            ),
            (
                .usage(
                    .dayClosed(
                        UsageDayClosed(
                            at: Self.at, day: "2026-02-28", calls: 4, peakCallsPerMinute: 2, devices: 900,
                            successes: 850))),
                [
                    "at": .string(Self.at), "day": "2026-02-28", "calls": 4, "peakCallsPerMinute": 2, "devices": 900,
                    "successes": 850,
                ]
            ),
        ]
        for (event, stored) in cases {
            #expect(event.json.encoded() == stored.encoded(), "\(event.type)")
            #expect(try LedgerEvent(type: event.type, data: stored) == event, "\(event.type)")
        }
        // Each of these families' kinds is covered, and a `_User`'s creation and update take the users' kinds.
        #expect(
            Set(cases.map(\.0.type))
                == AppEvent.all.union(ObjectEvent.all).union(UsageEvent.all)
                .union([PresenceEvent.connected, PresenceEvent.disconnected]))
        #expect(cases[4].0.type == ObjectEvent.userSignedUp && cases[3].0.type == ObjectEvent.userUpdated)
    }

    @Test("every type the log holds is one family's kind; an unknown type or a missing field is an error")
    func families() throws {
        let completed = PushMilestone(objectId: "p1", at: Self.at)
        #expect(try LedgerEvent(type: PushEvent.completed, data: completed.json) == .push(.completed(completed)))
        #expect(throws: UnknownEventType.self) { try LedgerEvent(type: "TestNoise", data: [:]) }
        #expect(throws: MalformedPayload.self) {
            try LedgerEvent(type: ObjectEvent.created, data: ["className": "Team", "objectId": "o1"])
        }
        #expect(throws: MalformedPayload.self) { try LedgerEvent(type: UsageEvent.quotaRefused, data: ["at": "x"]) }
        #expect(throws: MalformedPayload.self) {
            try LedgerEvent(type: PresenceEvent.connected, data: ["objectId": "i"])
        }
        #expect(throws: MalformedPayload.self) { try LedgerEvent(type: AppEvent.created, data: ["name": "n"]) }
        // Older shapes: a settings change without `unset`, an object change without `types`, a connect without
        // an installation id.
        #expect(
            try LedgerEvent(type: AppEvent.settingsChanged, data: ["set": ["a": 1]])
                == .app(.settingsChanged(AppSettingsChanged(set: ["a": 1], unset: []))))
        guard
            case .object(.updated(let update)) = try LedgerEvent(
                type: ObjectEvent.updated, data: ["className": "T", "objectId": "o", "updatedAt": .string(Self.at)])
        else {
            Issue.record("not an update")
            return
        }
        #expect(update.types.isEmpty && update.set.isEmpty && update.unset.isEmpty)
        guard
            case .presence(.connected(let change)) = try LedgerEvent(
                type: PresenceEvent.connected, data: ["objectId": "i", "session": "s", "at": .string(Self.at)])
        else {
            Issue.record("not a connect")
            return
        }
        #expect(change.installationId == "" && change.reason == nil)
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
