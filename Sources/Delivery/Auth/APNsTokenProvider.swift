import Foundation
import PushCore
import Synchronization

/// The APNs provider token shared by every request of one credential: signs on demand under a lock (ES256
/// takes microseconds), following `ProviderTokenStateMachine`.
public final class APNsTokenProvider: Sendable {
    private let signer: APNsJWTSigner
    private let clock: ServiceClock
    private let state: Mutex<ProviderTokenStateMachine>

    public init(
        signer: APNsJWTSigner,
        refreshAge: Duration = .seconds(50 * 60),
        clock: ServiceClock = .system
    ) throws(CredentialError) {
        self.signer = signer
        self.clock = clock
        state = Mutex(try ProviderTokenStateMachine(refreshAge: refreshAge))
    }

    /// The token to put in `authorization: bearer …`.
    public func currentToken() -> String {
        let now = clock.now()
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
        let now = clock.now()
        state.withLock { $0.rejected(token, now: now) }
    }
}
