import Foundation
import NIOCore
import PushCore

extension SimulatorEngine {
    static let accessTokenLifetime = 3600
    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// `POST /token`: Google's OAuth 2.0 `jwt-bearer` grant for service accounts.
    func handleOAuth(_ request: SimulatorRequest) -> SimulatorResponse {
        let result = self.exchange(request)
        self.state.withLock { $0.oauth.count(rejection: result.refusal?.code) }
        if let refusal = result.refusal {
            return .json(
                400,
                .members([("error", .string(refusal.code)), ("error_description", .string(refusal.description))])
            )
        }
        return .json(
            200,
            .members([
                ("access_token", .string(result.token ?? "")),
                ("expires_in", .integer(Self.accessTokenLifetime)),
                ("token_type", .string("Bearer")),
            ]),
            headers: [("cache-control", "no-cache, no-store, max-age=0, must-revalidate")]
        )
    }

    private func exchange(
        _ request: SimulatorRequest
    ) -> (
        token: String?, refusal: ServiceAccountAssertionVerifier.Refusal?
    ) {
        typealias Refusal = ServiceAccountAssertionVerifier.Refusal
        guard request.method == "POST" else {
            return (nil, Refusal(code: "invalid_request", description: "Token requests must use POST."))
        }
        let form = FormDecoding.decode(request.bodyString[...])
        guard form["grant_type"] == Self.jwtBearerGrant else {
            let grant = form["grant_type"] ?? ""
            return (nil, Refusal(code: "unsupported_grant_type", description: "Invalid grant_type: \(grant)"))
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return (nil, Refusal(code: "invalid_request", description: "Missing required parameter: assertion"))
        }
        do {
            _ = try self.assertions.verify(assertion: assertion, now: Int(Date().timeIntervalSince1970))
        } catch {
            return (nil, error)
        }
        let token = self.accessTokens.withLock { $0.issue(lifetime: .seconds(Int64(Self.accessTokenLifetime))) }
        return (token, nil)
    }
}
