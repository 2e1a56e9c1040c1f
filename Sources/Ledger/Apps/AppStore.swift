import Foundation
import Postgres
import PushCore

/// Creates apps, changes their settings (both as events) and finds them for authentication, with a short
/// cache so every request does not cost a query.
public final class AppStore: Sendable {
    let store: EventStore
    private let cache = AppCache()

    public init(store: EventStore) { self.store = store }

    /// Creates an app; missing ids and keys are generated.
    public func create(
        name: String, appId: String? = nil, appKey: String? = nil, masterKey: String? = nil,
        metadata: EventMetadata = .system("cli")
    ) async throws -> App {
        let id = appId ?? RandomID.make(length: 24)
        for (label, value) in [("id", id), ("key", appKey ?? "x"), ("master key", masterKey ?? "x")] {
            guard !value.isEmpty, value.utf8.count <= 64,
                value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            else {
                throw LeanError.invalidParameter("The app \(label) must be 1-64 letters, digits, '-' or '_'.")
            }
        }
        let key = appKey ?? RandomID.make(length: 24)
        let master = masterKey ?? RandomID.make(length: 24)
        let now = LeanDate.format(store.clock.now())
        try await store.write(appId: id, metadata: metadata, lockKeys: [AppEvent.stream]) { tx in
            guard try await tx.currentVersion(of: AppEvent.stream) == 0 else {
                throw LeanError.invalidParameter("An app with id \(id) already exists.")
            }
            let data: JSON = [
                "name": .string(name), "appKey": .string(key), "masterKey": .string(master), "settings": [:],
                "createdAt": .string(now),
            ]
            try await tx.append(stream: AppEvent.stream, expectedVersion: 0, [NewEvent(AppEvent.created, data)])
        }
        return App(appId: id, name: name, appKey: key, masterKey: master, settings: [:])
    }

    /// Applies `key=value` settings (an empty value removes a setting).
    public func set(
        appId: String, _ pairs: [(String, String)], metadata: EventMetadata = .system("cli")
    ) async throws
        -> App
    {
        var set: [String: JSON] = [:]
        var unset: [String] = []
        for (key, value) in pairs {
            if let parsed = try AppSettings.parse(key: key, value: value) {
                set[key] = parsed
            } else {
                unset.append(key)
            }
        }
        try await store.write(appId: appId, metadata: metadata, lockKeys: [AppEvent.stream]) { tx in
            let version = try await tx.currentVersion(of: AppEvent.stream)
            guard version > 0 else { throw LeanError.notFound("No app with id \(appId).") }
            let data: JSON = ["set": .object(set), "unset": .array(unset.map { .string($0) })]
            try await tx.append(
                stream: AppEvent.stream, expectedVersion: version, [NewEvent(AppEvent.settingsChanged, data)])
        }
        cache.invalidate(appId)
        guard let app = try await find(appId) else { throw LeanError.notFound("No app with id \(appId).") }
        return app
    }

    /// The app, from a cache at most two seconds old (settings changes reach every process quickly).
    public func find(_ appId: String) async throws -> App? {
        if let hit = cache.get(appId) { return hit.app }
        let rows = try await store.pool.query(
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
        try await store.pool.query("SELECT app_id FROM apps ORDER BY created_at").map { try $0.string("app_id") }
    }
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
