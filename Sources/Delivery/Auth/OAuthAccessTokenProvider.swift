import Curl
import Foundation
import HTTPTypes
import PushCore
import Synchronization

/// An access token from a token endpoint: makes the grant request (FCM's signed service-account assertion,
/// WNS', Huawei's and Honor's client credentials, OPPO's and vivo's signed requests), caches the result, and lets
/// only one exchange run at a time (`AccessTokenStateMachine`).
public final class OAuthAccessTokenProvider: Sendable {
    /// The token request to send at `now`.
    public typealias RequestBuilder = @Sendable (_ now: Date) -> CurlRequest
    /// Reads the endpoint's answer: OAuth's `access_token`/`expires_in` by default, a vendor's own shape else.
    public typealias ResponseReader = @Sendable (CurlResponse) throws(AccessTokenError) -> OAuthTokenResponse

    private enum Step: Sendable {
        case token(String)
        case failed(AccessTokenError)
        case fetch
    }

    private struct State {
        var machine: AccessTokenStateMachine
        var waiters: [CheckedContinuation<Step, Never>] = []
    }

    private let makeRequest: RequestBuilder
    private let read: ResponseReader
    private let http: CurlClient
    private let clock: ServiceClock
    private let state: Mutex<State>

    public init(
        http: CurlClient,
        refreshMargin: Duration = .seconds(300),
        clock: ServiceClock = .system,
        read: @escaping ResponseReader = OAuthAccessTokenProvider.readOAuth,
        request: @escaping RequestBuilder
    ) {
        self.makeRequest = request
        self.read = read
        self.http = http
        self.clock = clock
        state = Mutex(State(machine: AccessTokenStateMachine(refreshMargin: refreshMargin)))
    }

    public func accessToken() async throws(AccessTokenError) -> String {
        // The common case, a cached token, takes one lock and no suspension.
        let now = clock.now()
        if let token = state.withLock({ $0.machine.usableToken(now: now) }) { return token }
        let step = await withCheckedContinuation { (waiter: CheckedContinuation<Step, Never>) in
            let action = state.withLock { state in
                let action = state.machine.action(now: now)
                if action == .wait { state.waiters.append(waiter) }
                return action
            }
            switch action {
            case .use(let token): waiter.resume(returning: .token(token))
            case .fetch: waiter.resume(returning: .fetch)
            case .wait: break
            }
        }
        switch step {
        case .token(let token): return token
        case .failed(let error): throw error
        case .fetch: return try await fetchAndPublish().get()
        }
    }

    /// The provider refused a request sent with `token` as unauthorised.
    public func rejected(_ token: String) {
        state.withLock { $0.machine.rejected(token) }
    }

    /// Runs the one exchange and hands its result to everyone who waited for it.
    private func fetchAndPublish() async -> Result<String, AccessTokenError> {
        // Unstructured on purpose: the exchange serves every waiter, so one caller's cancellation must not end it.
        let result = await Task { await self.fetch() }.value
        let waiters = state.withLock { state in
            switch result {
            case .success(let response):
                state.machine.fetched(response.accessToken, expiresIn: response.expiresIn, now: clock.now())
            case .failure:
                state.machine.fetchFailed()
            }
            let waiters = state.waiters
            state.waiters = []
            return waiters
        }
        let step: Step
        switch result {
        case .success(let response): step = .token(response.accessToken)
        case .failure(let error): step = .failed(error)
        }
        for waiter in waiters { waiter.resume(returning: step) }
        return result.map(\.accessToken)
    }

    private func fetch() async -> Result<OAuthTokenResponse, AccessTokenError> {
        let request = makeRequest(clock.now())
        let response: CurlResponse
        do {
            response = try await http.send(request)
        } catch {
            return .failure(.transport(error))
        }
        do {
            return .success(try read(response))
        } catch {
            return .failure(error)
        }
    }

    /// OAuth's answer: 200 with `access_token`, else a refusal with its `error`.
    public static func readOAuth(_ response: CurlResponse) throws(AccessTokenError) -> OAuthTokenResponse {
        guard response.status == 200 else {
            let body = String(decoding: response.body.prefix(512), as: UTF8.self)
            let code = OAuthTokenResponse.errorCode(response.body)
            throw .refused(status: response.status, error: code, body: body)
        }
        return try OAuthTokenResponse.parse(response.body)
    }
}

extension OAuthAccessTokenProvider {
    /// OAuth's client-credentials grant (RFC 6749 §4.4) at `endpoint`: WNS' (with its scope), Huawei's and Honor's.
    public static func clientCredentialsRequest(
        endpoint: String, clientId: String, secret: String, scope: String? = nil, timeout: Duration
    ) -> CurlRequest {
        var form = [("grant_type", "client_credentials"), ("client_id", clientId), ("client_secret", secret)]
        if let scope { form.append(("scope", scope)) }
        return formRequest(endpoint: endpoint, form: form, timeout: timeout)
    }

    /// A form-encoded `POST` to a token endpoint, asking for a JSON answer.
    public static func formRequest(
        endpoint: String, form: [(name: String, value: String)], timeout: Duration
    ) -> CurlRequest {
        CurlRequest(
            method: .post, url: endpoint,
            headers: [.contentType: "application/x-www-form-urlencoded", .accept: "application/json"],
            body: Array(FormEncoding.encode(form).utf8), timeout: timeout
        )
    }
}
