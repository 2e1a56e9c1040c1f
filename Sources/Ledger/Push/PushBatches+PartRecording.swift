import Foundation
import Postgres
import PushCore

extension PushBatches {
    /// One `recordPart` call, waiting to be recorded with the other parts of its push.
    struct PartRecord: Sendable {
        let claim: BatchClaim
        let part: [(index: Int, outcome: TargetOutcome)]
        let pushFailure: String?
        /// As given; otherwise the clock's when the record is made.
        let now: Date?
        let channelCap: Int64

        /// Parts of one push, and of one channel cap, may be recorded together.
        var group: String { "\(claim.appId)\u{1F}\(claim.pushId)\u{1F}\(channelCap)" }
    }

    /// Records parts of one push's batches in one transaction: one lock of the push stream, one read of its
    /// job, one `PushBatchDelivered` append for all of them (with its projections), one commit. Each part is
    /// recorded as `recordPart` describes, one after the other, so a part that completes a batch (or the push)
    /// sees the parts before it recorded. Should the shared transaction fail, each part is tried again alone,
    /// so that one part's error (say, a token changed under it) is its own and no other's.
    struct PartRecording: Sendable {
        /// The most parts one transaction takes: four senders' windows, and more than enough.
        static let maxParts = 32

        let store: EventStore

        func run(_ records: [PartRecord]) async -> [Result<RecordedPart?, any Error>] {
            do {
                return try await record(records)
            } catch {
                guard records.count > 1 else { return [.failure(error)] }
            }
            var results: [Result<RecordedPart?, any Error>] = []
            for record in records {
                do {
                    results += try await self.record([record])
                } catch {
                    results.append(.failure(error))
                }
            }
            return results
        }

        /// What the transaction leaves for after its commit: a part's record and the devices it queued channel
        /// messages for.
        private struct Written: Sendable {
            var delivered: BatchDelivered
            var queuedTo: [String]
            var indices: [Int]
        }

        /// Throws when the transaction did not commit; after it, each part's result is its own (a channel trim
        /// that fails is that part's error, its record stands).
        private func record(_ records: [PartRecord]) async throws -> [Result<RecordedPart?, any Error>] {
            let first = records[0].claim
            // The latest time asked for: every part is recorded then (the parts' own are moments apart).
            let now = records.compactMap(\.now).max() ?? store.clock.now()
            let invalidStreams = records.flatMap { record in
                record.part.compactMap { index, outcome -> String? in
                    let target = record.claim.targets[index]
                    switch outcome {
                    case .invalidToken:
                        return target.objectId.isEmpty
                            ? "token:\(target.token)" : InstallationEvent.stream(target.objectId)
                    case .disabled where !target.objectId.isEmpty: return InstallationEvent.stream(target.objectId)
                    default: return nil
                    }
                }
            }
            let written: [Written?] = try await store.write(
                appId: first.appId, metadata: .system("delivery"),
                lockKeys: [PushEvent.stream(first.pushId)] + invalidStreams
            ) { tx in
                var push = try await PushLifecycleInterpreter.load(pushId: first.pushId, at: now, tx: tx)
                push.defersAppends = true
                var written: [Written?] = []
                for record in records {
                    written.append(try await self.record(record, push: &push, now: now, tx: tx))
                }
                try await push.flushAppends()
                return written
            }
            var recorded: [Result<RecordedPart?, any Error>] = []
            for (record, written) in zip(records, written) {
                guard let written else {
                    recorded.append(.success(nil))
                    continue
                }
                do {
                    if !written.queuedTo.isEmpty {
                        try await ChannelLedger(store: store).trim(
                            appId: first.appId, objectIds: written.queuedTo, cap: record.channelCap)
                    }
                    recorded.append(.success(RecordedPart(delivered: written.delivered, indices: written.indices)))
                } catch {
                    recorded.append(.failure(error))
                }
            }
            return recorded
        }

        /// One part, in the shared transaction; nil when none of its targets is left to record.
        private func record(
            _ record: PartRecord, push: inout PushLifecycleInterpreter, now: Date, tx: LedgerTransaction
        ) async throws -> Written? {
            let (claim, part, pushFailure) = (record.claim, record.part, record.pushFailure)
            let conn = tx.connection
            guard var recordedTargets = try await PushLifecycleInterpreter.lockRecorded(claim, on: conn) else {
                return nil
            }
            let fresh = part.filter { !recordedTargets.contains($0.index) }
            guard !fresh.isEmpty else { return nil }
            for (index, _) in fresh { recordedTargets.insert(index) }
            try await PushLifecycleInterpreter.markRecorded(claim, recordedTargets, on: conn)
            let targets = fresh.map { claim.targets[$0.index] }
            let invalid = zip(targets, fresh).compactMap { t, f -> (PushTarget, String, Date)? in
                if case .invalidToken(let reason, let since) = f.outcome { return (t, reason, since) }
                return nil
            }
            let disabled = zip(targets, fresh).compactMap { t, f -> (PushTarget, String)? in
                if case .disabled(let reason) = f.outcome, !t.objectId.isEmpty { return (t, reason) }
                return nil
            }
            let live = push.lifecycle.acceptsOutcomes(pushFailure: pushFailure)
            let at = LeanDate.format(now)
            var outcomes = fresh.map(\.outcome)
            var queued: [(objectId: String, message: QueuedMessage)] = []
            for (target, outcome) in zip(targets, outcomes) {
                if case .queued(let message) = outcome, live { queued.append((target.objectId, message)) }
            }
            if !queued.isEmpty {
                let unreachable = try await ChannelMessages.enqueue(
                    appId: claim.appId, pushId: claim.pushId, batchNo: claim.batchNo, messages: queued, now: now,
                    on: conn)
                for (i, target) in targets.enumerated() where unreachable.contains(target.objectId) {
                    outcomes[i] = .failed(reason: "NoDeliveryChannel")
                }
                queued.removeAll { unreachable.contains($0.objectId) }
            }
            let (delivered, handedBack) = PushBatches.tally(
                claim, targets: targets, outcomes: outcomes, live: live, unsentReason: push.lifecycle.unsentReason,
                invalidTokens: Int64(invalid.count), queued: Int64(queued.count), at: at)
            let batchRecord = PushLifecycle.BatchRecord(
                delivered: delivered, handedBack: handedBack, completesBatch: recordedTargets.isComplete,
                pushFailure: pushFailure)
            try await push.perform { $0.batchRecorded(batchRecord) }
            try await rememberDeliveries(claim, targets: targets, outcomes: outcomes, at: at, on: conn)
            for (target, reason, since) in invalid {
                let stream =
                    target.objectId.isEmpty ? "token:\(target.token)" : InstallationEvent.stream(target.objectId)
                try await invalidate(target, reason: reason, since: since, stream: stream, tx: tx)
            }
            for (target, reason) in disabled {
                try await disable(target, reason: reason, at: at, tx: tx)
            }
            return Written(delivered: delivered, queuedTo: queued.map(\.objectId), indices: fresh.map(\.index))
        }
    }
}

extension PushBatches.PartRecording {
    /// Remembers this push as the last one delivered to each reached installation, so an open without `_nid`
    /// can be attributed to it (SPEC §6).
    private func rememberDeliveries(
        _ claim: BatchClaim, targets: [PushTarget], outcomes: [TargetOutcome], at: String, on conn: PGConnection
    )
        async throws
    {
        // In id order, as `remember` bounds its range by the first and the last: a batch is in page order
        // only within each vendor lane (`PushTargeting.batches(of:size:)`).
        let reached = zip(targets, outcomes).compactMap { t, o in
            o == .delivered && !t.objectId.isEmpty ? t.objectId : nil
        }.sorted()
        try await LastDeliveries.remember(
            appId: claim.appId, pushId: claim.pushId, objectIds: reached, at: at, on: conn)
    }

    /// An Android vendor declared the token invalid (SPEC §12.3): the installation, if it still has this token,
    /// is set `valid: false` by an `InstallationUpdated` that names the reason. Its `updatedAt` stays (the device
    /// did nothing), its token stays (clearing it would send the device to another channel); a save with a new
    /// `registrationId` makes it valid again.
    private func disable(_ target: PushTarget, reason: String, at: String, tx: LedgerTransaction) async throws {
        let row = try await tx.connection.query(
            """
            SELECT version, registration_id, valid, updated_at FROM installations
            WHERE app_id = \(tx.appId) AND object_id = \(target.objectId)
            """
        ).first
        guard let row, row["registration_id"] == target.token, row["valid"] == "t" else { return }
        let disabled = InstallationUpdated(
            objectId: target.objectId, set: ["valid": false], unset: [],
            updatedAt: LeanDate.format(try row.date("updated_at")), at: at,
            invalidatedBy: .init(reason: reason, token: target.token))
        try await tx.append(
            stream: InstallationEvent.stream(target.objectId), expectedVersion: try row.int("version"),
            [NewEvent(.updated(disabled))])
    }

    /// The installation goes (if it still has this token) and the token is remembered as invalid.
    private func invalidate(
        _ target: PushTarget, reason: String, since: Date, stream: String, tx: LedgerTransaction
    )
        async throws
    {
        var invalidated = InstallationInvalidated(
            objectId: target.objectId, token: target.token, reason: reason, since: LeanDate.format(since),
            at: LeanDate.format(store.clock.now()))
        if !target.objectId.isEmpty {
            let row = try await tx.connection.query(
                """
                SELECT version, coalesce(device_token, registration_id, subscription_uri) AS token FROM installations
                WHERE app_id = \(tx.appId) AND object_id = \(target.objectId)
                """
            ).first
            // Re-registered with another token since it was targeted: nothing to invalidate.
            guard let row, row["token"] == target.token else { return }
            try await tx.append(
                stream: stream, expectedVersion: try row.int("version"),
                [NewEvent(.invalidated(invalidated))])
        } else {
            invalidated.objectId = ""
            try await tx.append(
                stream: stream, expectedVersion: try await tx.currentVersion(of: stream),
                [NewEvent(.invalidated(invalidated))])
        }
    }
}
