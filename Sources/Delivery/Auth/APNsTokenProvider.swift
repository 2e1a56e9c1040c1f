import Foundation
import Synchronization

/// The APNs provider token shared by every request of one credential: signs on demand under a lock (ES256
/// takes microseconds), following `ProviderTokenStateMachine`.
public final class APNsTokenProvider: Sendable {
    private let signer: APNsJWTSigner
    private let now: @Sendable () -> Date
    private let state: Mutex<ProviderTokenStateMachine>

    public init(
        signer: APNsJWTSigner,
        refreshAge: Duration = .seconds(50 * 60),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(CredentialError) {
        self.signer = signer
        self.now = now
        state = Mutex(try ProviderTokenStateMachine(refreshAge: refreshAge))
    }

    /// The token to put in `authorization: bearer …`.
    public func currentToken() -> String {
        let now = now()
        return state.withLock { machine in
            switch machine.action(now: now) {
            case .use(let token):
                return token
            case .generate:
                let token = signer.token(issuedAt: now)
                machine.generated(token, issuedAt: now)
                return token
            }
        }
    }

    /// APNs answered `ExpiredProviderToken` to a request sent with `token`.
    public func rejected(_ token: String) {
        let now = now()
        state.withLock { $0.rejected(token, now: now) }
    }
}
