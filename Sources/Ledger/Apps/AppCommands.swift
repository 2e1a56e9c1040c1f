import Foundation
import Postgres
import PushCore

/// The app commands: create an app and change its settings, each an event on the app's own stream. A change
/// reaches this process's `AppDirectory` at once, and the other processes' within their cache's two seconds.
public struct AppCommands: Sendable {
    let store: EventStore
    let directory: AppDirectory

    public init(store: EventStore, directory: AppDirectory) {
        self.store = store
        self.directory = directory
    }

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
            let created = AppCreated(name: name, appKey: key, masterKey: master, settings: [:], createdAt: now)
            try await tx.append(stream: AppEvent.stream, expectedVersion: 0, [NewEvent(.created(created))])
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
            try await tx.append(
                stream: AppEvent.stream, expectedVersion: version,
                [NewEvent(.settingsChanged(AppSettingsChanged(set: set, unset: unset)))])
        }
        directory.forget(appId)
        guard let app = try await directory.find(appId) else { throw LeanError.notFound("No app with id \(appId).") }
        return app
    }
}
