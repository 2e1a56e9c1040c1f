import Ledger
import Synchronization

/// The batches this process is working on. A lease that lapsed while its sender waited for the database
/// can be claimed again by a sibling sender of the same process; that sibling must not send it a second
/// time (the claim itself renewed the lease, so the first sender simply carries on).
final class HeldBatches: Sendable {
    private let keys = Mutex<Set<String>>([])

    static func key(_ claim: BatchClaim) -> String { "\(claim.appId)|\(claim.pushId)|\(claim.batchNo)" }

    /// False when the batch is already held here.
    func take(_ claim: BatchClaim) -> Bool { keys.withLock { $0.insert(Self.key(claim)).inserted } }

    func release(_ claim: BatchClaim) { _ = keys.withLock { $0.remove(Self.key(claim)) } }
}
