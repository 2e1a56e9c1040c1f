import Foundation
import Postgres
import PushCore

/// `pushledger replay` (SPEC §9): the installations a `where` would have targeted at an instant, from the log
/// alone. The app's installation events up to the instant are folded into a scratch schema with the
/// projection's semantics, and PushTargeting's own condition is evaluated there with `now` = the instant, so
/// installations deleted or expired since are found as they were. A `where` that reads other classes
/// (`$inQuery`, `$select`) reads them folded to the instant too: a user who moved since is where they were.
public struct Replayer: Sendable {
    let store: EventStore

    public init(store: EventStore) { self.store = store }

    public struct Result: Sendable {
        /// Matching installation objectIds, ascending.
        public let objectIds: [String]
        /// Installation events folded.
        public let events: Int
        public let seconds: Double
    }

    /// - Parameters:
    ///   - pushData: a push's `data`; when given, installations of a platform it has no content for are left out,
    ///     as targeting skips them.
    ///   - progress: see `withReplayedInstallations`.
    public func replay(
        app: App, at: Date, whereJSON: JSON, pushData: PushData? = nil,
        strategy: ReplayFoldStrategy = .setBased, progress: (@Sendable (Int, Int?) -> Void)? = nil
    ) async throws -> Result {
        let started = Date()
        // Compiled once up front, so a bad `where` fails before any work.
        _ = try PushTargeting.targetCondition(app: app, whereJSON: whereJSON, now: at)
        let platforms = PushPlatform.allCases.filter { pushData?.content(for: $0) != nil }.map(\.rawValue)
        return try await withReplayedInstallations(
            app: app, at: at, strategy: strategy, withObjects: WhereCompiler.readsOtherClasses(whereJSON),
            progress: progress
        ) { conn, state in
            let condition = try PushTargeting.targetCondition(
                app: state.app, whereJSON: whereJSON, now: at, objectsTable: state.scratch.objects)
            let platformFilter: PGQuery = pushData == nil ? "" : "AND device_type = ANY(\(platforms)::text[])"
            let ids = try await conn.query(
                """
                SELECT object_id FROM \(unsafeRaw: state.scratch.installations)
                WHERE \(condition) \(platformFilter)
                ORDER BY object_id
                """
            ).map { try $0.string("object_id") }
            return Result(objectIds: ids, events: state.events, seconds: Date().timeIntervalSince(started))
        }
    }

    /// Lends the app's installations as they stood at `at` (a scratch table) inside one REPEATABLE READ
    /// transaction; the scratch schema is dropped when `body` returns.
    /// - Parameter withObjects: also fold the app's objects of other classes (`scratch.objects`); otherwise
    ///   that table stays empty.
    /// - Parameter progress: called with (installation events folded, total) when the fold starts and when it is
    ///   done. The fold is a few set-based statements (or a walk inside `InstallationFold`), so there is nothing in
    ///   between to report and no total before the end.
    public func withReplayedInstallations<T: Sendable>(
        app: App, at: Date, strategy: ReplayFoldStrategy = .setBased, withObjects: Bool = false,
        progress: (@Sendable (Int, Int?) -> Void)? = nil,
        _ body: (PGConnection, ReplayedState) async throws -> T
    ) async throws -> T {
        try await store.pool.withTransaction(isolation: .repeatableRead) { conn in
            try await InstallationFold.tune(conn)
            let scratch = try await ReplayScratch.create(on: conn, indexedInstallations: strategy == .perEvent)
            let fold = InstallationFold(appId: app.appId, at: at)
            try await fold.appSettings(into: scratch, on: conn)
            progress?(0, nil)
            let events =
                switch strategy {
                case .setBased: try await fold.setBased(into: scratch, on: conn)
                case .perEvent: try await fold.perEvent(into: scratch, on: conn)
                }
            if withObjects { _ = try await ObjectFold(appId: app.appId, at: at).setBased(into: scratch, on: conn) }
            progress?(events, events)
            let state = ReplayedState(
                scratch: scratch, app: try await Self.app(app, in: scratch, on: conn), at: at, events: events)
            let value = try await body(conn, state)
            try await scratch.drop(on: conn)
            return value
        }
    }

    /// The app with its settings as folded into `scratch`, or `current` when the app had no events yet.
    static func app(_ current: App, in scratch: ReplayScratch, on conn: PGConnection) async throws -> App {
        guard
            let row = try await conn.query(
                "SELECT settings FROM \(unsafeRaw: scratch.apps) WHERE app_id = \(current.appId)"
            ).first
        else { return current }
        return App(
            appId: current.appId, name: current.name, appKey: current.appKey, masterKey: current.masterKey,
            settings: try row.json("settings").objectValue ?? [:])
    }
}
