import Foundation
import Postgres
import PushCore

/// Saves that arrived together, committed together (see `GroupCommitQueue`).
extension InstallationCommands {
    /// What became of one save of a batch.
    enum BatchOutcome {
        /// Saved, or refused for a reason of its own (bad fields, identities of two installations).
        case answered(Result<SaveResult, any Error>)
        /// Not decided in the batch (the installation it found went away, or another save of the batch
        /// found the same one): it runs alone once the batch has committed.
        case alone
    }

    /// Runs `batch` (saves of one app, no two naming the same identity) in one transaction. A lone save
    /// takes the plain path. If the transaction fails, every save of it runs alone, so a database error
    /// (a token taken by a concurrent PUT, say) reaches only the save at fault, and nothing half-done stays.
    static func save(_ batch: [PendingSave], store: EventStore) async -> [Result<SaveResult, any Error>] {
        guard batch.count > 1 else { return [await result { try await saveAlone(batch[0], store: store) }] }
        let outcomes: [BatchOutcome]
        do {
            outcomes = try await store.write(
                appId: batch[0].appId, commands: batch.map { ($0.metadata, $0.identityKeys) }
            ) { transactions in
                try await upsertTogether(batch, transactions: transactions)
            }
        } catch {
            outcomes = batch.map { _ in .alone }
        }
        var results: [Result<SaveResult, any Error>] = []
        for (save, outcome) in zip(batch, outcomes) {
            switch outcome {
            case .answered(let result): results.append(result)
            case .alone: results.append(await result { try await saveAlone(save, store: store) })
            }
        }
        return results
    }

    /// The batch's statements, in the order the log's locking rule needs: every read and every lock before
    /// the first append. The identity locks are held already (taken by `EventStore.write`).
    private static func upsertTogether(
        _ batch: [PendingSave], transactions: [LedgerTransaction]
    ) async throws
        -> [BatchOutcome]
    {
        let conn = transactions[0].connection
        let appId = batch[0].appId
        // Who holds these identities, for every save at once.
        let holders = try await conn.query(
            .reusingPlan(
                """
                SELECT object_id, device_token, installation_id FROM installations
                WHERE app_id = \(appId) AND device_token = ANY(\(batch.compactMap(\.token))::text[])
                UNION
                SELECT object_id, device_token, installation_id FROM installations
                WHERE app_id = \(appId) AND installation_id = ANY(\(batch.compactMap(\.installationId))::text[])
                """))
        var byToken: [String: String] = [:], byInstallationId: [String: String] = [:]
        for row in holders {
            let objectId = try row.string("object_id")
            if let token = row["device_token"] { byToken[token] = objectId }
            if let iid = row["installation_id"] { byInstallationId[iid] = objectId }
        }

        var outcomes = [BatchOutcome?](repeating: nil, count: batch.count)
        var existing: [Int: String] = [:]  // save index → the installation it updates
        var taken: Set<String> = []
        for (i, save) in batch.enumerated() {
            let ids = Set(
                [save.token.flatMap { byToken[$0] }, save.installationId.flatMap { byInstallationId[$0] }]
                    .compactMap { $0 })
            if ids.count > 1 {
                outcomes[i] = .answered(.failure(ambiguousIdentity))
            } else if let objectId = ids.first {
                if taken.insert(objectId).inserted { existing[i] = objectId } else { outcomes[i] = .alone }
            }
        }
        // Lock the installations being updated (one statement, queued: no round trip of its own), then read
        // them in one statement.
        try await LedgerTransaction.lock(existing.map { (transactions[$0.key], [InstallationEvent.stream($0.value)]) })
        let current = try await loadAll(Array(existing.values), appId: appId, on: conn)

        // Plan every save (validation refuses a save before it has queued anything), then append them all
        // in one statement.
        var appends: [LedgerTransaction.StreamAppend] = []
        for (i, save) in batch.enumerated() where outcomes[i] == nil {
            do {
                if let objectId = existing[i] {
                    guard let installation = current[objectId] else {
                        outcomes[i] = .alone  // deleted before its lock was ours
                        continue
                    }
                    appends.append(
                        try planUpdate(
                            installation, body: save.body, at: save.now, wnsHosts: save.wnsHosts,
                            writer: save.writer, tx: transactions[i]))
                    outcomes[i] = .answered(
                        .success(
                            SaveResult(
                                objectId: objectId, createdAt: installation.createdAt, updatedAt: save.now,
                                created: false)))
                } else {
                    let (append, saved) = try planCreate(
                        body: save.body, at: save.now, wnsHosts: save.wnsHosts, writer: save.writer,
                        tx: transactions[i])
                    appends.append(append)
                    outcomes[i] = .answered(.success(saved))
                }
            } catch let refusal as LeanError {
                outcomes[i] = .answered(.failure(refusal))
            }
        }
        try await LedgerTransaction.append(appends)
        return outcomes.map { $0 ?? .alone }
    }

    /// The installations `objectIds`, by object id.
    private static func loadAll(
        _ objectIds: [String], appId: String, on conn: PGConnection
    ) async throws
        -> [String: StoredInstallation]
    {
        guard !objectIds.isEmpty else { return [:] }
        let rows = try await conn.query(
            .reusingPlan(
                """
                SELECT object_id, data, created_at, updated_at, version FROM installations
                WHERE app_id = \(appId) AND object_id = ANY(\(objectIds)::text[])
                """))
        var found: [String: StoredInstallation] = [:]
        for row in rows {
            let installation = try StoredInstallation(row: row)
            found[installation.objectId] = installation
        }
        return found
    }

    private static func result<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}
