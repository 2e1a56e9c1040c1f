import Foundation
import Ledger
import PushCore

/// A seeded random log of one app that uses every event type the projections handle: installations created
/// (iOS and Android), updated (channels, custom fields, a token registered again, unsets), badge resets and
/// increments, app and push opens (also of removed installations), deletes, invalidations and expiries;
/// objects of two classes created, updated (new fields fixing their types) and deleted; pushes requested,
/// targeted, delivered and (all but one) completed; and the app's time zone changed along the way, across
/// local midnights.
/// Every sequence is one the real commands could write: a token is held by one live installation at a time.
struct RandomHistory {
    private var rng: SeededRandom
    private var events: [ProjectedEvent] = []
    private var versions: [String: Int] = [:]
    private var tick = 0
    /// Live installations and the token each holds.
    private var live: [String: String] = [:]
    /// Invalidated tokens and the tick they were found invalid at.
    private var invalidated: [String: Int] = [:]
    private var liveObjects: Set<String> = []
    private var delivered: [String: Int] = [:]
    /// How many saves registered an invalidated token again after the time it was found invalid.
    private(set) var forgiven = 0
    let app = LogFoldTests.app
    let pushes = ["push0", "push1", "push2"]

    /// - Parameter appEvents: events already in the app's own stream (its creation and first settings).
    init(seed: UInt64, appEvents: Int) {
        rng = SeededRandom(seed: seed)
        versions[AppEvent.stream] = appEvents
    }

    mutating func make(steps: Int) -> [ProjectedEvent] {
        for push in pushes {
            let request: JSON = ["data": ["alert": "hi"], "prod": "prod", "where": [:]]
            append(
                PushEvent.stream(push), PushEvent.requested,
                PushRequested(objectId: push, request: request, at: at(), status: PushEvent.Status.inQueue).json)
        }
        for _ in 0..<steps {
            tick += 1
            switch next(20) {
            case 0..<4: createInstallation()
            case 4, 5: updateInstallation()
            case 6: touch(InstallationEvent.badgeReset)
            case 7: touch(InstallationEvent.badgeIncremented)
            case 8..<10: open(removed: false)
            case 10: open(removed: true)
            case 11: remove(InstallationEvent.deleted)
            case 12: remove(InstallationEvent.invalidated)
            case 13: remove(InstallationEvent.expired)
            case 14..<17: changeObject()
            case 17, 18: deliver()
            default: changeTimeZone()
            }
        }
        // Whatever the draw, one installation found invalid and one left live, each with a token nothing else
        // uses, so neither `invalid_tokens` nor `installations` ends trivially empty.
        for (id, token) in [("i-invalid", "tok-invalid"), ("i-live", "tok-live")] {
            tick += 1
            let fields: [String: JSON] = ["deviceType": "ios", "deviceToken": .string(token)]
            installation(
                id, InstallationEvent.created, InstallationCreated(objectId: id, fields: fields, at: at()).json)
        }
        tick += 1
        installation(
            "i-invalid", InstallationEvent.invalidated,
            [
                "objectId": "i-invalid", "token": "tok-invalid", "reason": "Unregistered", "since": .string(at()),
                "at": .string(at()),
            ])
        // The last push is still being sent: its record keeps the `updated_at` of its last batch, the later of
        // two in one run.
        deliver(only: pushes.last!)
        for push in pushes.dropLast() {
            append(PushEvent.stream(push), PushEvent.completed, ["objectId": .string(push), "at": .string(at())])
        }
        return events
    }

    private mutating func next(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }

    /// Ticks are 41 minutes apart, so the history crosses local midnights in any zone.
    private func at(_ t: Int? = nil) -> String {
        LeanDate.format(Date(timeIntervalSince1970: 1_767_000_000 + Double(t ?? tick) * 2_460))
    }

    private mutating func append(_ stream: String, _ type: String, _ data: JSON) {
        versions[stream, default: 0] += 1
        events.append(
            try! ProjectedEvent(appId: app, stream: stream, version: versions[stream]!, type: type, data: data))
    }

    private mutating func installation(_ id: String, _ type: String, _ data: JSON) {
        append(InstallationEvent.stream(id), type, data)
    }

    /// A token no live installation holds (the unique index allows one), or nil.
    private mutating func freeToken() -> String? {
        let held = Set(live.values)
        let free = (0..<10).map { "tok\($0)" }.filter { !held.contains($0) }
        return free.isEmpty ? nil : free[next(free.count)]
    }

    /// A save carrying `token` after it was found invalid lifts the invalidation (what `apply` does).
    private mutating func registered(_ token: String) {
        if let since = invalidated[token], since < tick {
            invalidated[token] = nil
            forgiven += 1
        }
    }

    private mutating func createInstallation() {
        let id = "i\(next(24))"
        guard live[id] == nil, let token = freeToken() else { return }
        var fields: [String: JSON] = ["channels": .array([.string("c\(next(3))")]), "badge": .int(Int64(next(4)))]
        if next(2) == 0 {
            fields["deviceType"] = "ios"
            fields["deviceToken"] = .string(token)
        } else {
            fields["deviceType"] = "android"
            fields["installationId"] = .string("iid-\(id)")
            fields["registrationId"] = .string(token)
        }
        live[id] = token
        registered(token)
        let createdAt = at()
        // Now and then a creation whose `updatedAt` is not its `createdAt`, as an import of an installation changed
        // before it was imported writes it (the server writes them equal): the fold parses `updatedAt` only then.
        if next(5) == 0 { tick += 1 }
        installation(
            id, InstallationEvent.created,
            [
                "objectId": .string(id), "fields": .object(fields), "createdAt": .string(createdAt),
                "updatedAt": .string(at()),
            ])
    }

    private mutating func updateInstallation() {
        guard let id = live.keys.sorted().randomElement(using: &rng) else { return }
        var set: [String: JSON] = ["channels": .array([.string("c\(next(3))"), .string("u\(next(2))")])]
        var unset: [String] = []
        switch next(3) {
        case 0: set["custom"] = .int(Int64(next(100)))
        case 1: unset = ["custom", "badge"]
        default:
            // The device got a new token (as iOS devices do); registering it lifts an earlier invalidation.
            if let token = freeToken() {
                set["deviceToken"] = .string(token)
                live[id] = token
                registered(token)
            }
        }
        installation(
            id, InstallationEvent.updated,
            InstallationUpdated(objectId: id, set: set, unset: unset, updatedAt: at()).json
        )
    }

    private mutating func touch(_ type: String) {
        guard let id = live.keys.sorted().randomElement(using: &rng) else { return }
        if type == InstallationEvent.badgeIncremented {
            // As a push writes it: the new badge (or, now and then, none) and no `updatedAt`, which it leaves alone.
            var data: [String: JSON] = ["objectId": .string(id), "at": .string(at())]
            if next(3) > 0 { data["badge"] = .int(Int64(next(9))) }
            installation(id, type, .object(data))
            return
        }
        installation(id, type, BadgeChanged(objectId: id, resetAt: at()).json)
    }

    /// An app open, or a push open naming a push delivered earlier; `removed`: of an installation that is gone
    /// (the projection's UPDATE matches nothing, but the push statistics still count it).
    private mutating func open(removed: Bool) {
        let id = removed ? "i\(next(24))" : live.keys.sorted().randomElement(using: &rng)
        guard let id, !removed || live[id] == nil else { return }
        let push = next(4) == 0 ? nil : pushes.filter { delivered[$0] != nil }.randomElement(using: &rng)
        installation(
            id, InstallationEvent.opened,
            AppOpened(
                objectId: id, at: at(), updatedAt: at(), kind: push == nil ? "app" : "push",
                platform: next(2) == 0 ? "ios" : "android", pushId: push, attribution: push == nil ? nil : "explicit",
                deliveredAt: push.map { at(delivered[$0]) }
            ).json)
    }

    private mutating func remove(_ type: String) {
        guard let id = live.keys.sorted().randomElement(using: &rng), let token = live.removeValue(forKey: id) else {
            return
        }
        if type == InstallationEvent.invalidated {
            // Found invalid up to two ticks before or after the event: a save in between may or may not lift it.
            let since = tick + next(5) - 2
            invalidated[token] = since
            installation(
                id, type,
                [
                    "objectId": .string(id), "token": .string(token), "reason": "BadDeviceToken",
                    "since": .string(at(since)), "at": .string(at()),
                ])
        } else {
            installation(id, type, InstallationRemoved(objectId: id, reason: "test", at: at()).json)
        }
    }

    private mutating func changeObject() {
        let className = next(2) == 0 ? "Team" : "_User"
        let id = "o\(next(6))"
        let key = "\(className):\(id)"
        let stream = ObjectEvent.stream(className: className, objectId: id)
        if !liveObjects.contains(key) {
            liveObjects.insert(key)
            let fields: [String: JSON] = ["name": .string("n\(next(9))"), "score": .int(Int64(next(50)))]
            let created = ObjectCreated(
                className: className, objectId: id, fields: fields, types: ["name": .string, "score": .number],
                at: at())
            append(stream, ObjectEvent.created, created.json)
        } else if next(4) == 0 {
            liveObjects.remove(key)
            append(stream, ObjectEvent.deleted, ObjectDeleted(className: className, objectId: id, at: at()).json)
        } else {
            // A field seen for the first time fixes its type; the first type written for it stays.
            let field = "f\(next(4))"
            let value: JSON = next(2) == 0 ? .bool(true) : .string("v")
            let updated = ObjectUpdated(
                className: className, objectId: id, set: [field: value, "score": .int(Int64(next(50)))],
                unset: next(3) == 0 ? ["name"] : [], types: [field: value == .bool(true) ? .boolean : .string],
                at: at())
            append(stream, ObjectEvent.updated, updated.json)
        }
    }

    /// One to three batches of random pushes: each targets up to four live installations, and once all are
    /// targeted they are delivered in a shuffled order (some targets failing with one of two reasons, some
    /// succeeding on Windows, some queued for the own channel), as concurrent senders record them. Runs of
    /// consecutive targeted pages and delivered batches, sometimes of one push, sometimes across a local
    /// midnight, are what `applyAll` writes with one statement (`PushCounterRun`).
    /// - Parameter only: the push all batches are of, and then there are two (else each is of a random push).
    private mutating func deliver(only: String? = nil) {
        var batches: [(push: String, batch: Int64, count: Int64)] = []
        for _ in 0...(only == nil ? next(3) : 1) {
            let push = only ?? pushes[next(pushes.count)]
            let ids = Array(live.keys.sorted().shuffled(using: &rng).prefix(1 + next(4)))
            guard !ids.isEmpty else { return }
            let batch = Int64(versions[PushEvent.stream(push), default: 0])
            let targets = ids.map {
                PushTarget(objectId: $0, deviceType: "ios", token: live[$0]!, profile: nil, badge: nil)
            }
            append(
                PushEvent.stream(push), PushEvent.targeted,
                PushTargeted(objectId: push, batch: batch, targets: targets, at: at()).json)
            batches.append((push, batch, Int64(ids.count)))
            tick += next(2)
        }
        for (push, batch, count) in batches.shuffled(using: &rng) {
            append(
                PushEvent.stream(push), PushEvent.batchDelivered,
                BatchDelivered.random(
                    objectId: push, batch: batch, count: count, at: at(),
                    reasons: ["BadDeviceToken", "Unregistered"], using: &rng
                ).json)
            delivered[push] = tick
            tick += 1
        }
    }

    /// A new zone, or now and then none (the setting removed: UTC again).
    private mutating func changeTimeZone() {
        if next(4) == 0 {
            append(AppEvent.stream, AppEvent.settingsChanged, ["set": [:], "unset": ["timezone"]])
            return
        }
        let zone = ["America/New_York", "UTC", "Asia/Shanghai"][next(3)]
        append(AppEvent.stream, AppEvent.settingsChanged, ["set": ["timezone": .string(zone)], "unset": []])
    }
}
