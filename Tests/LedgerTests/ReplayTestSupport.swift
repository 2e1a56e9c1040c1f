import Foundation
import Ledger
import Postgres
import PushCore
import TestSupport
import Testing

/// Helpers shared by the Replay tests: events the HTTP API does not append yet (opens, badge increments,
/// invalidation, expiry) are appended through the ledger as their real producers would.
enum ReplayTestSupport {
    /// Appends one event to an existing installation stream at its current version.
    static func append(_ db: TestDatabase, app: String, objectId: String, _ type: String, _ data: JSON) async throws {
        let stream = InstallationEvent.stream(objectId)
        try await db.ledger.events.write(appId: app, metadata: .system("test"), lockKeys: [stream]) { tx in
            let version = try await tx.currentVersion(of: stream)
            let event = try #require(try InstallationLogEvent(type: type, json: data))
            try await tx.append(stream: stream, expectedVersion: version, [NewEvent(event)])
        }
    }

    /// Creates an installation whose creation happened at `at` (e.g. long ago), through the ledger.
    static func createBackdated(
        _ db: TestDatabase, app: String, fields: [String: JSON], at: Date
    ) async throws -> String {
        let objectId = RandomID.make()
        let stream = InstallationEvent.stream(objectId)
        try await db.ledger.events.write(appId: app, metadata: .system("test"), lockKeys: []) { tx in
            tx.claimNewStream(stream)
            try await tx.append(
                stream: stream, expectedVersion: 0,
                [NewEvent(.created(InstallationCreated(objectId: objectId, fields: fields, at: LeanDate.format(at))))])
        }
        return objectId
    }

    /// The push's `PushTargeted` events in log order: the object ids they targeted and the targeting instant.
    static func targeted(_ db: TestDatabase, app: App, pushId: String) async throws -> (ids: [String], at: Date?) {
        let events = try await db.ledger.pool.query(
            """
            SELECT data FROM events WHERE app_id = \(app.appId) AND stream = \(PushEvent.stream(pushId))
              AND type = \(PushEvent.targeted) ORDER BY transaction_id, position
            """
        ).map { try $0.json("data") }
        let ids = events.flatMap { ($0["targets"]?.arrayValue ?? []).compactMap { $0["o"]?.stringValue } }
        return (ids.sorted(), events.first?["at"]?.stringValue.flatMap(LeanDate.parse))
    }

    /// Rows (key, data, dates, version) of `app` in table `a` missing from table `b`, as JSON text. `key` is
    /// `object_id` for installations, `class_name, object_id` for objects.
    static func rowsOnlyIn(
        _ a: String, notIn b: String, app: String, key: String = "object_id", on conn: PGConnection
    ) async throws -> [String] {
        try await conn.query(
            """
            SELECT row_to_json(d)::text AS r FROM (
                SELECT \(unsafeRaw: key), data, created_at, updated_at, version FROM \(unsafeRaw: a) WHERE app_id = \(app)
                EXCEPT ALL
                SELECT \(unsafeRaw: key), data, created_at, updated_at, version FROM \(unsafeRaw: b) WHERE app_id = \(app)) d
            ORDER BY 1
            """
        ).map { try $0.string("r") }
    }

    /// Lets the wall clock move past every timestamp written so far, so an instant taken now separates
    /// "before" from "after" (InstallationCommands stamps events with the real time).
    static func tick() async throws { try await Task.sleep(for: .milliseconds(15)) }
}

/// The rebuild tests' SplitMix64, usable with the standard library's random APIs.
extension SeededRandom: RandomNumberGenerator {}
