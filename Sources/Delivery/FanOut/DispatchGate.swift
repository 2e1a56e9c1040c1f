import PushCore
import Synchronization

/// Tells a batch's senders to stop handing new requests to the providers: the push was cancelled or failed
/// (seen in the database), one answer condemned the whole push, or the process is shutting down. Requests
/// already handed over finish and are recorded; the rest come back as `.notSent`.
final class DispatchGate: Sendable {
    enum StopReason: Sendable, Equatable {
        /// The push itself cannot be sent: its record ends `failed: <reason>`.
        case pushFailed(String)
        /// Its job was cancelled or failed elsewhere; nothing to add to the record.
        case jobEnded(JobState)
    }

    private let state = Mutex<StopReason?>(nil)

    /// Why dispatching stopped, or nil while it goes on.
    var stopReason: StopReason? { state.withLock { $0 } }
    var isOpen: Bool { stopReason == nil }

    /// The reason the whole push failed, when that is why the gate closed.
    var pushFailure: String? {
        if case .pushFailed(let reason) = stopReason { return reason }
        return nil
    }

    /// Closes the gate; the first reason given is kept.
    func stop(_ reason: StopReason) {
        state.withLock { if $0 == nil { $0 = reason } }
    }
}
