import NIOCore

/// Where one connection is between requests, as its timeouts see it (SPEC §12.8). Pure: the guard feeds it
/// what it observes and arms one timer for `deadline`.
struct ConnectionPhase {
    enum State: Equatable {
        /// Between requests (or not yet spoken): closed once idle too long.
        case idle(since: NIODeadline)
        /// A request (or the TLS handshake) is arriving: it must be whole by `deadline`. `answered` when the
        /// server has already written its response (an early refusal while the body still arrives).
        case receiving(deadline: NIODeadline, answered: Bool)
        /// The request arrived; the server is answering (its own time, not the client's).
        case responding
        /// A device-channel WebSocket: the channel's ping policy governs it, not these timeouts.
        case channel
        case closing
    }

    private(set) var state: State
    private(set) var responseInProgress = false
    /// The TLS handshake has not finished: nothing can be written to the client yet.
    private(set) var handshaking: Bool
    let requestTimeout: TimeAmount
    let idleTimeout: TimeAmount

    init(now: NIODeadline, handshaking: Bool, requestTimeout: TimeAmount, idleTimeout: TimeAmount) {
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.handshaking = handshaking
        state = handshaking ? .receiving(deadline: now + requestTimeout, answered: false) : .idle(since: now)
    }

    /// When the connection is closed unless something happens first; nil when no timer runs.
    var deadline: NIODeadline? {
        switch state {
        case .idle(let since): since + idleTimeout
        case .receiving(let deadline, _): deadline
        case .responding, .channel, .closing: nil
        }
    }

    /// Bytes came in, or the decoder produced a request head: a request starts if none was under way.
    mutating func requestStarted(now: NIODeadline) {
        if case .idle = state { state = .receiving(deadline: now + requestTimeout, answered: false) }
    }

    mutating func handshakeCompleted(now: NIODeadline) {
        guard handshaking else { return }
        handshaking = false
        if case .receiving = state { state = .idle(since: now) }
    }

    /// The request's end arrived.
    mutating func requestReceived(now: NIODeadline) {
        guard case .receiving(_, let answered) = state else { return }
        state = answered ? .idle(since: now) : .responding
    }

    mutating func responseStarted() { responseInProgress = true }

    /// The response's end was written.
    mutating func responseSent(now: NIODeadline) {
        responseInProgress = false
        switch state {
        case .responding: state = .idle(since: now)
        case .receiving(let deadline, _): state = .receiving(deadline: deadline, answered: true)
        case .idle, .channel, .closing: break
        }
    }

    mutating func upgradedToChannel() { state = .channel }

    mutating func closing() { state = .closing }

    /// What a timer that fired at `now` means: nil when the phase moved on since it was armed.
    func expired(now: NIODeadline) -> ConnectionEnd? {
        guard let deadline, now >= deadline else { return nil }
        if case .idle = state { return .idleTimeout }
        return .requestTimeout
    }
}
