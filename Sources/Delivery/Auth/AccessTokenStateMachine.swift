import Foundation
import PushCore

/// When to reuse the cached OAuth access token and when to fetch a new one, with one fetch at a time.
///
/// A token is used until `refreshMargin` before it expires; while a refresh is under way, requests keep using
/// the old token as long as it has not expired, and only wait when there is none. Pure: time comes in as `now`.
public struct AccessTokenStateMachine: Sendable {
    /// What the caller should do to get a token.
    public enum Action: Sendable, Hashable {
        case use(String)
        /// Fetch one, then report `fetched` or `fetchFailed`.
        case fetch
        /// Another caller is fetching; wait for its result.
        case wait
    }

    public let refreshMargin: Duration
    private var token: (value: String, expiresAt: Date, refreshAt: Date)?
    private var fetching = false

    public init(refreshMargin: Duration = .seconds(300)) {
        self.refreshMargin = refreshMargin
    }

    public var isFetching: Bool { fetching }

    public mutating func action(now: Date) -> Action {
        if let token = usableToken(now: now) { return .use(token) }
        if fetching { return .wait }
        fetching = true
        return .fetch
    }

    /// The token `action` would hand out without a fetch, if any; changes nothing.
    public func usableToken(now: Date) -> String? {
        guard let token else { return nil }
        if now < token.refreshAt { return token.value }
        if fetching, now < token.expiresAt { return token.value }
        return nil
    }

    /// - Parameter expiresIn: the endpoint's `expires_in`.
    public mutating func fetched(_ value: String, expiresIn: Duration, now: Date) {
        fetching = false
        let lifetime = expiresIn.timeInterval
        // Short-lived tokens (a simulator's, say) refresh at half-life instead of never being "fresh".
        let margin = min(refreshMargin.timeInterval, lifetime / 2)
        token = (value, now.addingTimeInterval(lifetime), now.addingTimeInterval(lifetime - margin))
    }

    public mutating func fetchFailed() {
        fetching = false
    }

    /// The provider answered 401 to a request sent with `value`: drop it unless a newer one replaced it.
    public mutating func rejected(_ value: String) {
        if token?.value == value { token = nil }
    }
}
