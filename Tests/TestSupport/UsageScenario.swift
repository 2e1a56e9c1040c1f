import Foundation
import Ledger
import Postgres
import PushCore

/// A scripted history with known numbers over two simulated days of an app in Asia/Shanghai (UTC+8):
/// installations, pushes, deliveries, opens with and without `_nid`, a plain app open, a late open past the
/// 24-hour window, a badge reset, a rate-limit ban (3 calls/minute) and a daily quota (8 devices) that
/// stops one push mid-way and refuses the next call. Every figure the reports print is derived by hand in
/// the comments, and the tests check them exactly.
public struct UsageScenario: Sendable {
    public static let appId = "scenario"
    public static let day1 = "2026-10-01"
    public static let day2 = "2026-10-02"

    public let app: App
    /// The channel push to 6 devices (4 iOS, 2 Android): 5 delivered, 1 failed.
    public var p1 = ""
    /// The push stopped by the quota after 2 of 3 devices.
    public var p5 = ""
    /// The day-2 `/push/devices` push to one iOS device.
    public var p6 = ""
    /// Refusals the calls got: the ban, the call during the ban, the quota.
    public var refusals: [LeanError] = []
    public var installations: [String: String] = [:]

    /// `2026-10-01T03:00:00Z` plus an offset in seconds (11:00 in Shanghai).
    public static func day1(_ seconds: TimeInterval) -> Date {
        LeanDate.parse("2026-10-01T03:00:00Z")!.addingTimeInterval(seconds)
    }

    public static func day2(_ seconds: TimeInterval) -> Date { day1(86400 + seconds) }

    public static func build(_ ledger: LedgerComponents) async throws -> UsageScenario {
        _ = try await ledger.apps.create(
            name: "scenario", appId: appId, appKey: "scenario-key", masterKey: "scenario-master")
        let app = try await ledger.apps.set(
            appId: appId,
            [
                ("timezone", "Asia/Shanghai"), ("push_rate_per_minute", "3"), ("daily_push_quota", "8"),
            ])
        var s = UsageScenario(app: app)
        let master = EventMetadata(keyKind: "master", address: "10.0.0.1", userAgent: "ops-script/1.0")
        let device = EventMetadata(keyKind: "client", address: "10.0.0.2", userAgent: "LeanCloud-iOS-SDK")

        // Day 1, 10:00 local: nine installations.
        let specs: [(String, String, String)] = [
            ("i1", "ios", "news"), ("i2", "ios", "news"), ("i3", "ios", "news"), ("i4", "ios", "news"),
            ("a1", "android", "news"), ("a2", "android", "news"),
            ("s1", "android", "sports"), ("s2", "android", "sports"), ("s3", "android", "sports"),
        ]
        for (n, (name, type, channel)) in specs.enumerated() {
            var body: [String: JSON] = ["deviceType": .string(type), "channels": [.string(channel)]]
            if type == "ios" {
                body["deviceToken"] = .string(String(format: "%064x", n + 1))
            } else {
                body["installationId"] = .string("iid-\(name)")
                body["registrationId"] = .string("reg-\(name)")
            }
            let saved = try await ledger.installations.save(
                appId: appId, body: body, metadata: device, now: day1(-3600 + Double(n)))
            s.installations[name] = saved.objectId
        }

        // 11:00 P1 to "news": 6 devices; a2 fails.
        s.p1 = try await s.push(["channels": ["news"], "data": ["alert": "hello"]], at: day1(0), ledger, master)
        try await s.deliver(at: day1(5), failing: ["a2"], ledger)

        // Opens of P1 (delivered at 11:00:05): i1 with _nid after 600 s and again; i2 without _nid after
        // 3600 s (the last delivery); a1 through stats/collect after 7200 s; i3 a plain app open; a2 (whose
        // delivery failed) a push open nothing can be attributed to.
        let opens = ledger.opens
        _ = try await opens.record(
            appId: appId,
            AppOpen(
                installation: .objectId(s.installations["i1"]!), kind: .push,
                notificationId: s.p1, at: day1(605)), metadata: device, now: day1(606))
        _ = try await opens.record(
            appId: appId,
            AppOpen(
                installation: .objectId(s.installations["i1"]!), kind: .push,
                notificationId: s.p1, at: day1(1205)), metadata: device, now: day1(1206))
        _ = try await opens.record(
            appId: appId,
            AppOpen(
                installation: .objectId(s.installations["i2"]!), kind: .push,
                at: day1(3605)), metadata: device, now: day1(3606))
        _ = try await opens.record(
            appId: appId,
            AppOpen.parseCollect([
                "device": ["installation_id": "iid-a1"],
                "events": [["event": "!AV!PushOpen", "ts": .int(Int64(day1(7205).timeIntervalSince1970 * 1000))]],
            ]), metadata: device, now: day1(7206))
        _ = try await opens.record(
            appId: appId,
            AppOpen(
                installation: .objectId(s.installations["i3"]!), kind: .app,
                at: day1(9000)), metadata: device, now: day1(9000))
        _ = try await opens.record(
            appId: appId,
            AppOpen(
                installation: .installationId("iid-a2"), kind: .push,
                at: day1(9600)), metadata: device, now: day1(9600))

        // 14:00: three calls in one minute (empty audiences), the fourth is banned for 60 s, a fifth during
        // the ban is refused without a new ban.
        let nobody: JSON = ["where": ["deviceType": "none"], "data": ["alert": "x"]]
        for second in [10.0, 20, 30] {
            _ = try await s.push(nobody, at: day1(3 * 3600 + second), ledger, master)
        }
        for second in [40.0, 60] {
            do {
                _ = try await s.push(nobody, at: day1(3 * 3600 + second), ledger, master)
            } catch let error as LeanError {
                s.refusals.append(error)
            }
        }
        // 14:01:41, after the ban: P5 to "sports" (3 devices) crosses the quota of 8 after 2; delivered.
        s.p5 = try await s.push(
            ["channels": ["sports"], "data": ["alert": "goal"]], at: day1(3 * 3600 + 101), ledger, master)
        try await s.deliver(at: day1(3 * 3600 + 105), failing: [], ledger)
        // 15:00: the quota is used up.
        do {
            _ = try await s.push(["channels": ["news"], "data": ["alert": "late"]], at: day1(4 * 3600), ledger, master)
        } catch let error as LeanError {
            s.refusals.append(error)
        }

        // Day 2: i4 opens 24 h + 1 s after P1's delivery (too late to attribute); P6 to i4's token; i4
        // opens it with _nid after 300 s; i1 resets its badge.
        _ = try await opens.record(
            appId: appId,
            AppOpen(
                installation: .objectId(s.installations["i4"]!), kind: .push,
                at: day2(6)), metadata: device, now: day2(6))
        s.p6 = try await s.push(
            [
                "device_ids": [.string(String(format: "%064x", 4))], "device_type": "ios",
                "data": ["alert": "for you"],
            ], at: day2(60), ledger, master, devices: true)
        try await s.deliver(at: day2(65), failing: [], ledger)
        _ = try await opens.record(
            appId: appId,
            AppOpen(
                installation: .objectId(s.installations["i4"]!), kind: .push,
                notificationId: s.p6, at: day2(365)), metadata: device, now: day2(366))
        _ = try await ledger.installations.update(
            appId: appId, objectId: s.installations["i1"]!, body: ["badge": 0],
            metadata: device, now: day2(600))
        return s
    }

    /// A push call at a simulated instant, targeted at once.
    func push(
        _ body: JSON, at now: Date, _ ledger: LedgerComponents, _ metadata: EventMetadata, devices: Bool = false
    )
        async throws -> String
    {
        try await SimulatedPushes.push(body, app: app, at: now, ledger, metadata: metadata, devices: devices)
    }

    /// Sends every pending batch: all delivered but the named installations, which fail.
    func deliver(at now: Date, failing: Set<String>, _ ledger: LedgerComponents) async throws {
        let failingIds = Set(failing.compactMap { installations[$0] })
        try await SimulatedPushes.deliverPending(at: now, ledger) { t in
            failingIds.contains(t.objectId) ? .failed(reason: "Unavailable") : .delivered
        }
    }
}
