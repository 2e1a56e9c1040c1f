import PushCore

/// The OAuth 2.0 client-credentials token endpoints of HMS and Honor.
extension SimulatorEngine {
    /// `POST /hms/oauth2/v3/token` and `POST /honor/auth/token`: a form with `grant_type=client_credentials`,
    /// `client_id` and `client_secret`, answered with a bearer token for that vendor's sends only.
    func handleClientCredentials(_ request: SimulatorRequest, vendor: SimulatedProvider) -> SimulatorResponse {
        // Only a POSTed form carries the grant; anything else is refused like a form without its parameters.
        let form = request.method == "POST" ? request.formFields : [:]
        let refusal = Self.clientCredentialsRefusal(form, vendor: vendor)
        self.state.withLock { $0.countVendorAuth(vendor, rejection: refusal?.code) }
        if let refusal {
            return .json(400, refusal.body)
        }
        let (token, lifetime) = self.issueVendorToken(in: vendor == .hms ? .hms : .honor)
        return .json(
            200,
            .members([
                ("access_token", .string(token)),
                ("expires_in", .integer(lifetime)),
                ("token_type", .string("Bearer")),
            ])
        )
    }

    /// HMS answers numeric codes (`1101` invalid client, `1102` a parameter missing); Honor answers OAuth's words.
    private static func clientCredentialsRefusal(
        _ form: [String: String], vendor: SimulatedProvider
    ) -> (code: String, body: JSON)? {
        let expected =
            vendor == .hms
            ? (id: HMSRoute.appID, secret: HMSRoute.clientSecret)
            : (id: HonorRoute.clientID, secret: HonorRoute.clientSecret)
        let grant = form["grant_type"]
        let id = form["client_id"] ?? ""
        let secret = form["client_secret"] ?? ""
        if vendor == .hms {
            guard grant == "client_credentials", !id.isEmpty, !secret.isEmpty else {
                return Self.hmsTokenRefusal(HMSRoute.missingParameter, "missing required param")
            }
            guard id == expected.id, secret == expected.secret else {
                return Self.hmsTokenRefusal(HMSRoute.invalidClient, "invalid client")
            }
            return nil
        }
        guard grant == "client_credentials" else {
            return Self.honorTokenRefusal("unsupported_grant_type", "grant_type must be client_credentials")
        }
        guard !id.isEmpty, !secret.isEmpty else {
            return Self.honorTokenRefusal("invalid_request", "client_id and client_secret are required")
        }
        guard id == expected.id, secret == expected.secret else {
            return Self.honorTokenRefusal("invalid_client", "invalid client id or secret")
        }
        return nil
    }

    private static func hmsTokenRefusal(_ code: Int, _ description: String) -> (code: String, body: JSON) {
        (String(code), .members([("error", .integer(code)), ("error_description", .string(description))]))
    }

    private static func honorTokenRefusal(_ error: String, _ description: String) -> (code: String, body: JSON) {
        (error, .members([("error", .string(error)), ("error_description", .string(description))]))
    }
}
