import Foundation
import Ledger
import PushCore

/// Drives the push pipeline by hand at simulated instants — request, targeting, delivery — the way
/// `serve`'s fan-out does, without a provider, so tests can place each step on a chosen day.
public enum SimulatedPushes {
    /// A push call at `now`, targeted at once (every page, of `batchesPerPage` batches of `pageSize` targets).
    /// Returns the push's objectId.
    public static func push(
        _ body: JSON, app: App, at now: Date, _ ledger: LedgerComponents,
        metadata: EventMetadata = EventMetadata(keyKind: "master"), devices: Bool = false,
        pageSize: Int = PushEvent.batchSize, batchesPerPage: Int = 3
    ) async throws -> String {
        let request = try PushRequest.parse(
            body.objectValue ?? [:], devicesEndpoint: devices, headerProd: nil, now: now)
        let accepted = try await ledger.pushes.request(request, app: app, metadata: metadata, now: now)
        let targeting = PushTargeting(store: ledger.events, pageSize: pageSize, batchesPerPage: batchesPerPage)
        while try await targeting.step(app: app, pushId: accepted.objectId, now: now) {}
        return accepted.objectId
    }

    /// Records every pending batch at `now`, each target's outcome chosen by `outcome` (delivered by default).
    public static func deliverPending(
        at now: Date, _ ledger: LedgerComponents,
        outcome: (PushTarget) -> TargetOutcome = { _ in .delivered }
    ) async throws {
        let batches = PushBatches(store: ledger.events)
        while let claim = try await batches.claim(owner: "simulated", now: now) {
            try await batches.record(claim, outcomes: claim.targets.map(outcome), now: now)
        }
    }
}
