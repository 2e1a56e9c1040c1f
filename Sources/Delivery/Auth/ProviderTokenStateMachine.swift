import Foundation
import PushCore

/// When to reuse and when to regenerate the APNs provider token.
///
/// Apple rejects tokens older than an hour (`ExpiredProviderToken`) and answers `TooManyProviderTokenUpdates`
/// to tokens regenerated more often than every 20 minutes, so one token is shared by every request until it
/// reaches `refreshAge`. Pure: time comes in as `now`.
public struct ProviderTokenStateMachine: Sendable {
    /// What the caller should do to get a token.
    public enum Action: Sendable, Hashable {
        case use(String)
        /// Sign a new token and report it with `generated(_:issuedAt:)`.
        case generate
    }

    public static let minimumRefreshAge: Duration = .seconds(20 * 60)
    public static let maximumRefreshAge: Duration = .seconds(60 * 60)
    /// A token younger than this that APNs calls expired points at clock skew; regenerating at once would only
    /// earn `TooManyProviderTokenUpdates`.
    public static let rejectionGrace: Duration = .seconds(60)

    public let refreshAge: Duration
    private var current: (token: String, issuedAt: Date)?

    public init(refreshAge: Duration = .seconds(50 * 60)) throws(CredentialError) {
        guard refreshAge >= Self.minimumRefreshAge, refreshAge <= Self.maximumRefreshAge else {
            throw .invalidRefreshAge(refreshAge)
        }
        self.refreshAge = refreshAge
    }

    public func action(now: Date) -> Action {
        guard let current else { return .generate }
        let age = now.timeIntervalSince(current.issuedAt)
        // A clock stepped backwards makes the age negative; regenerate rather than trust the old token forever.
        guard age >= 0, age < refreshAge.timeInterval else { return .generate }
        return .use(current.token)
    }

    public mutating func generated(_ token: String, issuedAt: Date) {
        current = (token, issuedAt)
    }

    /// APNs answered `ExpiredProviderToken` to a request that carried `token`. Only the token still current is
    /// dropped, so the thousand requests that fail together cause one regeneration, not a thousand.
    public mutating func rejected(_ token: String, now: Date) {
        guard let current, current.token == token else { return }
        if now.timeIntervalSince(current.issuedAt) < Self.rejectionGrace.timeInterval,
            now >= current.issuedAt
        {
            return
        }
        self.current = nil
    }
}
