import Foundation
import PushCore

/// Failed logins (SPEC §12.5), counted per username and per address, each app on its own: five wrong
/// passwords for one username within a minute lock that username for a minute (so guessing one user's
/// password is slow from any number of addresses), and twenty from one address lock the address (so one
/// client cannot sweep many usernames). The address limit is the looser one because many honest users can
/// share an address behind NAT. Kept per process, like the console's.
final class UserLoginThrottle: Sendable {
    struct Attempt {
        let appId: String
        let username: String
        let address: String?

        var usernameKey: String { appId + "\u{1F}" + username }
        var addressKey: String? { address.map { appId + "\u{1F}" + $0 } }
    }

    private let byUsername = SharedLoginThrottle(LoginThrottle(maxFailures: 5, window: 60, lockout: 60))
    private let byAddress = SharedLoginThrottle(LoginThrottle(maxFailures: 20, window: 60, lockout: 60))

    /// Seconds the attempt must wait, or nil when it may go ahead.
    func refusal(_ attempt: Attempt, now: Date) -> Int? {
        let until = [
            byUsername.locked(attempt.usernameKey, now: now),
            attempt.addressKey.flatMap { byAddress.locked($0, now: now) },
        ].compactMap { $0 }.max()
        return until.map { max(1, Int($0.timeIntervalSince(now).rounded(.up))) }
    }

    func recordFailure(_ attempt: Attempt, now: Date) {
        byUsername.recordFailure(attempt.usernameKey, now: now)
        if let key = attempt.addressKey { byAddress.recordFailure(key, now: now) }
    }

    /// A right password forgets the username's earlier failures (not the address's: a client could otherwise
    /// reset its own count with an account of its own between guesses).
    func recordSuccess(_ attempt: Attempt) { byUsername.recordSuccess(attempt.usernameKey) }
}
