import Synchronization

/// Tells a batch's senders to stop handing new requests to the providers: the push was cancelled or failed
/// (seen in the database), one answer condemned the whole push, or the process is shutting down. Requests
/// already handed over finish and are recorded; the rest come back as `.notSent`.
final class DispatchGate: Sendable {
    private let state = Mutex<String?>(nil)

    /// Why dispatching stopped, or nil while it goes on.
    var stopReason: String? { state.withLock { $0 } }
    var isOpen: Bool { stopReason == nil }

    /// Closes the gate; the first reason given is kept.
    func stop(_ reason: String) {
        state.withLock { if $0 == nil { $0 = reason } }
    }
}
