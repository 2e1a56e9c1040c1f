import Foundation
import Postgres
import PushCore

/// Finds apps for authentication and for every part that reads an app's settings, with a short cache so that
/// a request does not cost a query.
public final class AppDirectory: Sendable {
    let pool: PGPool
    private let cache = AppCache()

    public init(pool: PGPool) { self.pool = pool }

    /// The app, from a cache at most two seconds old (settings changes reach every process quickly).
    public func find(_ appId: String) async throws -> App? {
        if let hit = cache.get(appId) { return hit.app }
        let rows = try await pool.query(
            "SELECT app_id, name, app_key, master_key, settings FROM apps WHERE app_id = \(appId)")
        let app = try rows.first.map { row in
            App(
                appId: try row.string("app_id"), name: try row.string("name"), appKey: try row.string("app_key"),
                masterKey: try row.string("master_key"), settings: try row.json("settings").objectValue ?? [:])
        }
        cache.put(appId, app)
        return app
    }

    public func all() async throws -> [String] {
        try await pool.query("SELECT app_id FROM apps ORDER BY created_at").map { try $0.string("app_id") }
    }

    /// Drops the cached app, so the next `find` reads its changed settings.
    func forget(_ appId: String) { cache.invalidate(appId) }
}

final class AppCache: @unchecked Sendable {
    struct Entry {
        let app: App?
        let at: Date
    }
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    func get(_ id: String) -> Entry? {
        lock.withLock {
            guard let e = entries[id], Date().timeIntervalSince(e.at) < 2 else { return nil }
            return e
        }
    }

    func put(_ id: String, _ app: App?) { lock.withLock { entries[id] = Entry(app: app, at: Date()) } }
    func invalidate(_ id: String) { lock.withLock { _ = entries.removeValue(forKey: id) } }
}
