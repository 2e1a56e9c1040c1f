import Foundation
import Postgres
import PushCore

/// The `_Installation` commands (SPEC §3): save, update, delete, each an event; `InstallationQueries` reads
/// what they recorded.
public struct InstallationCommands: Sendable {
    let store: EventStore
    /// Concurrent saves share transactions (see `GroupCommitQueue`).
    private let saves: GroupCommitQueue<PendingSave, SaveResult>

    /// `saveBatchSize` caps the saves one transaction carries; `concurrentSaveBatches` caps the transactions
    /// (and so the pool connections) saves use at once. Two rather than more: fewer transactions in flight make
    /// each one larger, and each transaction's fixed cost is what batching saves (`scripts/bench-installations-ab`
    /// compares such settings).
    public init(store: EventStore, saveBatchSize: Int = 32, concurrentSaveBatches: Int = 2) {
        self.store = store
        saves = GroupCommitQueue(
            maxBatch: saveBatchSize, maxRunning: concurrentSaveBatches, group: \.appId, claims: \.identityKeys
        ) { batch in
            await Self.save(batch, store: store)
        }
    }

    /// The answer to a save: LeanCloud answers 201 for a real create and 200 for an upsert.
    public struct SaveResult: Sendable {
        public let objectId: String
        public let createdAt: String
        public let updatedAt: String
        public let created: Bool
    }

    /// A save waiting for its transaction: the request, with the identities it upserts by.
    struct PendingSave: Sendable {
        let appId: String
        let body: [String: JSON]
        let token: String?
        let installationId: String?
        /// The identity locks ("token:…", "iid:…"): two saves naming the same one never share a batch.
        let identityKeys: [String]
        let metadata: EventMetadata
        let now: String
        /// Where the app's Windows channel URIs may point (its `wns.allowed_hosts`).
        let wnsHosts: WNSHosts
        /// Who saves: pointers at a `_User` are theirs to set (`UserPointerRule`).
        let writer: Writer
    }

    /// POST: creates an installation, or updates the one that already has this deviceToken/installationId.
    /// - Parameters:
    ///   - wnsHosts: the app's, which a `subscriptionUri` must point at (Microsoft's hosts only by default).
    ///   - writer: who saves (the REST routes pass the request's; server-side callers are `.master`).
    public func save(
        appId: String, body: [String: JSON], metadata: EventMetadata, now: Date? = nil, wnsHosts: WNSHosts = WNSHosts(),
        writer: Writer = .master
    ) async throws
        -> SaveResult
    {
        let now = now ?? store.clock.now()
        let token = try body["deviceToken"].map { v throws(LeanError) -> String in
            guard let s = v.stringValue, InstallationFields.isValidDeviceToken(s) else {
                throw .invalidDeviceToken("Invalid device token: an APNs device token is hexadecimal.")
            }
            return s.lowercased()
        }
        let installationId = try body["installationId"].map { v throws(LeanError) -> String in
            guard let s = v.stringValue, !s.isEmpty else { throw .invalidParameter("Invalid installationId.") }
            return s
        }
        let identityKeys = [token.map { "token:\($0)" }, installationId.map { "iid:\($0)" }].compactMap { $0 }
        guard !identityKeys.isEmpty else {
            // Without an identity there is nothing to upsert by; let validation explain what is missing.
            _ = try InstallationUpdate.apply(body: body, to: [:], isCreate: true, wnsHosts: wnsHosts, writer: writer)
            throw LeanError.missingField("deviceToken or installationId is required.")
        }
        return try await saves.submit(
            PendingSave(
                appId: appId, body: body, token: token, installationId: installationId, identityKeys: identityKeys,
                metadata: metadata, now: LeanDate.format(now), wnsHosts: wnsHosts, writer: writer))
    }

    /// One save in a transaction of its own.
    static func saveAlone(_ save: PendingSave, store: EventStore) async throws -> SaveResult {
        // An installation found by its token may be deleted before its stream lock is ours; then start over.
        for _ in 0..<3 {
            do {
                return try await upsert(save, store: store)
            } catch is InstallationVanished {
                continue
            } catch let error as PGError where error.isUniqueViolation {
                // A concurrent save or PUT gave this token to another installation; look again.
                continue
            }
        }
        throw LeanError.changedConcurrently("installation")
    }

    struct InstallationVanished: Error {}

    private static func upsert(_ save: PendingSave, store: EventStore) async throws -> SaveResult {
        try await store.write(appId: save.appId, metadata: save.metadata, lockKeys: save.identityKeys) { tx in
            let matches = try await tx.connection.query(
                identityLookup(appId: save.appId, token: save.token, installationId: save.installationId))
            let ids = Set(try matches.map { try $0.string("object_id") })
            guard ids.count <= 1 else { throw ambiguousIdentity }
            guard let objectId = ids.first else {
                return try await appendCreate(
                    body: save.body, at: save.now, wnsHosts: save.wnsHosts, writer: save.writer, tx: tx)
            }
            try await tx.lock([InstallationEvent.stream(objectId)])
            guard let current = try await StoredInstallation.load(objectId, appId: save.appId, on: tx.connection) else {
                throw InstallationVanished()
            }
            try await appendUpdate(
                current, body: save.body, at: save.now, wnsHosts: save.wnsHosts, writer: save.writer, tx: tx)
            return SaveResult(objectId: objectId, createdAt: current.createdAt, updatedAt: save.now, created: false)
        }
    }

    static var ambiguousIdentity: LeanError {
        .ambiguousToken("deviceToken and installationId belong to different installations.")
    }

    /// Appends a new installation's events (its fields validated first).
    static func appendCreate(
        body: [String: JSON], at now: String, wnsHosts: WNSHosts, writer: Writer, tx: LedgerTransaction
    ) async throws -> SaveResult {
        let (append, result) = try planCreate(body: body, at: now, wnsHosts: wnsHosts, writer: writer, tx: tx)
        try await LedgerTransaction.append([append])
        return result
    }

    /// A new installation's events, for `tx` to append; throws, having changed nothing, if a field is bad.
    static func planCreate(
        body: [String: JSON], at now: String, wnsHosts: WNSHosts, writer: Writer, tx: LedgerTransaction
    ) throws
        -> (LedgerTransaction.StreamAppend, SaveResult)
    {
        let update = try InstallationUpdate.apply(
            body: body, to: [:], isCreate: true, wnsHosts: wnsHosts, writer: writer)
        let objectId = RandomID.make()
        let stream = InstallationEvent.stream(objectId)
        tx.claimNewStream(stream)
        var events = [
            NewEvent(.created(InstallationCreated(objectId: objectId, fields: update.fields, at: now)))
        ]
        if update.resetsBadge {
            events.append(NewEvent(.badgeReset(BadgeChanged(objectId: objectId, resetAt: now))))
        }
        return (
            .init(tx, stream: stream, expectedVersion: 0, events: events),
            SaveResult(objectId: objectId, createdAt: now, updatedAt: now, created: true)
        )
    }

    /// PUT: applies field sets and `__op` operations; answers the new updatedAt.
    public func update(
        appId: String, objectId: String, body: [String: JSON], metadata: EventMetadata,
        now date: Date? = nil, wnsHosts: WNSHosts = WNSHosts(), writer: Writer = .master
    ) async throws -> String {
        let date = date ?? store.clock.now()
        return try await store.write(appId: appId, metadata: metadata, lockKeys: [InstallationEvent.stream(objectId)]) {
            tx in
            guard let current = try await StoredInstallation.load(objectId, appId: appId, on: tx.connection) else {
                throw LeanError.notFound()
            }
            // A new deviceToken or installationId must not collide with another installation's.
            let now = LeanDate.format(date)
            do {
                try await Self.appendUpdate(current, body: body, at: now, wnsHosts: wnsHosts, writer: writer, tx: tx)
                try await tx.flushProjections()
            } catch let error as PGError where error.isUniqueViolation {
                throw LeanError.ambiguousToken("That deviceToken or installationId belongs to another installation.")
            }
            return now
        }
    }

    /// DELETE one installation.
    public func delete(appId: String, objectId: String, metadata: EventMetadata, now: Date? = nil) async throws {
        let now = now ?? store.clock.now()
        let stream = InstallationEvent.stream(objectId)
        try await store.write(appId: appId, metadata: metadata, lockKeys: [stream]) { tx in
            guard let current = try await StoredInstallation.load(objectId, appId: appId, on: tx.connection) else {
                throw LeanError.notFound()
            }
            let removed = InstallationRemoved(objectId: objectId, reason: "api", at: LeanDate.format(now))
            try await tx.append(stream: stream, expectedVersion: current.version, [NewEvent(.deleted(removed))])
        }
    }

    static func appendUpdate(
        _ current: StoredInstallation, body: [String: JSON], at now: String, wnsHosts: WNSHosts, writer: Writer,
        tx: LedgerTransaction
    )
        async throws
    {
        try await LedgerTransaction.append([
            planUpdate(current, body: body, at: now, wnsHosts: wnsHosts, writer: writer, tx: tx)
        ])
    }

    /// The events that apply `body` to `current`, for `tx` to append; throws, having changed nothing, if the
    /// body is bad.
    static func planUpdate(
        _ current: StoredInstallation, body: [String: JSON], at now: String, wnsHosts: WNSHosts, writer: Writer,
        tx: LedgerTransaction
    )
        throws -> LedgerTransaction.StreamAppend
    {
        let update = try InstallationUpdate.apply(
            body: body, to: current.fields, isCreate: false, wnsHosts: wnsHosts, writer: writer)
        var set = update.set
        var events: [NewEvent] = []
        let resets = update.resetsBadge
        if resets { set["badge"] = nil }
        if !set.isEmpty || !update.unset.isEmpty || !resets {
            events.append(
                NewEvent(
                    .updated(
                        InstallationUpdated(objectId: current.objectId, set: set, unset: update.unset, updatedAt: now))
                ))
        }
        if resets {
            events.append(NewEvent(.badgeReset(BadgeChanged(objectId: current.objectId, resetAt: now))))
        }
        return .init(
            tx, stream: InstallationEvent.stream(current.objectId), expectedVersion: current.version, events: events)
    }

    /// The installations holding `token` or `installationId`. A save usually names only one of them; the
    /// statement then has one shape whose plan never depends on the values, so it can reuse its plan.
    private static func identityLookup(appId: String, token: String?, installationId: String?) -> PGQuery {
        switch (token, installationId) {
        case (let token?, nil):
            return .reusingPlan(
                "SELECT object_id FROM installations WHERE app_id = \(appId) AND device_token = \(token)")
        case (nil, let installationId?):
            return .reusingPlan(
                "SELECT object_id FROM installations WHERE app_id = \(appId) AND installation_id = \(installationId)")
        default:
            return """
                SELECT object_id FROM installations
                WHERE app_id = \(appId) AND (device_token = \(token) OR installation_id = \(installationId))
                """
        }
    }
}
