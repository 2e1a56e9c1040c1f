import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// The store queries the console is built on, against what the fan-out itself records.
@Suite("Console queries: preview, listing, cancel", .requiresPostgreSQL)
struct ConsoleQueriesTests {
    let meta = EventMetadata(keyKind: "master", address: "192.0.2.7", userAgent: "ua", requestId: "r1")

    func save(_ db: TestDatabase, _ app: App, _ body: [String: JSON]) async throws {
        _ = try await db.ledger.installations.save(appId: app.appId, body: body, metadata: meta)
    }

    @Test("the preview counts per platform what targeting then records, skipping platforms without content")
    func previewEqualsTargeting() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "p", appId: "preview")
        for i in 0..<7 {
            try await save(
                db, app,
                [
                    "deviceType": "ios", "deviceToken": .string(String(format: "%064x", i + 1)),
                    "channels": ["c"],
                ])
        }
        for i in 0..<3 {
            try await save(
                db, app,
                [
                    "deviceType": "android", "installationId": .string("inst-\(i)"),
                    "registrationId": .string("reg-\(i)"), "channels": ["c"],
                ])
        }
        try await save(
            db, app,
            [
                "deviceType": "ios", "deviceToken": .string(String(repeating: "e", count: 64)),
                "channels": ["other"],
            ])
        let targeting = PushTargeting(store: db.ledger.events)
        let now = Date()
        func parsed(_ body: [String: JSON]) throws -> PushRequest {
            try PushRequest.parse(body, devicesEndpoint: false, headerProd: nil, now: now)
        }
        let all = try await targeting.preview(try parsed(["channels": ["c"], "data": ["alert": "x"]]), app: app)
        #expect(all.devices.map(\.platform) == ["android", "ios"])
        #expect(all.devices.map(\.count) == [3, 7])
        #expect(all.quotaLeft == 1_000_000 && all.quota == 1_000_000)
        // Content for iOS only: Android devices are not counted, as the fan-out skips them.
        let iosOnly = try parsed(["channels": ["c"], "data": ["ios": ["alert": "x"]]])
        #expect(try await targeting.preview(iosOnly, app: app).devices.map(\.platform) == ["ios"])

        let accepted = try await db.ledger.pushes.request(iosOnly, app: app, metadata: meta, now: now)
        while try await targeting.step(app: app, pushId: accepted.objectId, now: now) {}
        let record = try #require(
            try await db.ledger.pushQueries.get(appId: app.appId, pushId: accepted.objectId)?.json)
        #expect(record["devices"] == 7)
        // The quota left is what the targeting used up.
        #expect(try await targeting.preview(iosOnly, app: app).quotaLeft == 1_000_000 - 7)
    }

    @Test("cancel stops a scheduled push and keeps its record; an ended push is refused with code 1")
    func cancelKeepsTheRecord() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "c", appId: "cancel")
        let now = Date()
        let request = try PushRequest.parse(
            ["data": ["alert": "x"], "push_time": .string(LeanDate.format(now.addingTimeInterval(3600)))],
            devicesEndpoint: false, headerProd: nil, now: now)
        let accepted = try await db.ledger.pushes.request(request, app: app, metadata: meta, now: now)
        try await db.ledger.pushes.cancel(appId: app.appId, pushId: accepted.objectId, metadata: meta)
        let record = try #require(
            try await db.ledger.pushQueries.get(appId: app.appId, pushId: accepted.objectId)?.json)
        #expect(record["status"] == "cancelled")
        #expect(try await db.ledger.pushQueries.scheduled(appId: app.appId).isEmpty)
        let error = await #expect(throws: LeanError.self) {
            try await db.ledger.pushes.cancel(appId: app.appId, pushId: accepted.objectId, metadata: meta)
        }
        #expect(error?.code == 1)
        let missing = await #expect(throws: LeanError.self) {
            try await db.ledger.pushes.cancel(appId: app.appId, pushId: "nope", metadata: meta)
        }
        #expect(missing?.code == 101)
    }

    @Test("listing filters by status and day, and tells each push's sender and device list from the log")
    func listingAndSenders() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "l", appId: "listing")
        let now = Date()
        let later = try PushRequest.parse(
            ["data": ["alert": "x"], "push_time": .string(LeanDate.format(now.addingTimeInterval(3600)))],
            devicesEndpoint: false, headerProd: nil, now: now)
        let scheduled = try await db.ledger.pushes.request(later, app: app, metadata: meta, now: now)
        let soon = try PushRequest.parse(["data": ["alert": "y"]], devicesEndpoint: false, headerProd: nil, now: now)
        let queued = try await db.ledger.pushes.request(soon, app: app, metadata: .system("test"), now: now)
        func ids(_ filter: PushListFilter) async throws -> [String] {
            try await db.ledger.pushQueries.list(appId: app.appId, filter: filter, limit: 10, skip: 0).compactMap {
                $0.json["objectId"]?.stringValue
            }
        }
        #expect(try await ids(PushListFilter(status: .scheduled)) == [scheduled.objectId])
        #expect(try await ids(PushListFilter(status: .inQueue)) == [queued.objectId])
        #expect(try await ids(PushListFilter(status: .failed)).isEmpty)
        #expect(Set(try await ids(PushListFilter(from: now.addingTimeInterval(-60)))).count == 2)
        #expect(try await ids(PushListFilter(to: now.addingTimeInterval(-60))).isEmpty)
        let listed = try PushRequest.parse(
            ["data": ["alert": "z"], "device_type": "android", "device_ids": ["a", "b", "c"]], devicesEndpoint: true,
            headerProd: nil, now: now)
        let devices = try await db.ledger.pushes.request(listed, app: app, metadata: meta, now: now)
        let origins = try await db.ledger.pushQueries.origins(
            appId: app.appId, pushIds: [scheduled.objectId, queued.objectId, devices.objectId, "unknown"])
        #expect(origins[scheduled.objectId] == PushOrigin(sender: meta, deviceType: nil, deviceIds: 0))
        #expect(origins[queued.objectId]?.sender.keyKind == "system")
        #expect(origins[devices.objectId]?.deviceType == "android" && origins[devices.objectId]?.deviceIds == 3)
        #expect(origins["unknown"] == nil)
    }
}
