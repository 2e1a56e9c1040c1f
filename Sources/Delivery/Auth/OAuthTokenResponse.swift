import PushCore

/// The token endpoint's answer, `{"access_token": …, "expires_in": …, "token_type": "Bearer"}`.
public struct OAuthTokenResponse: Sendable, Hashable {
    public var accessToken: String
    public var expiresIn: Duration

    public init(accessToken: String, expiresIn: Duration) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
    }

    /// Reads a 200 body; a missing `expires_in` counts as Google's usual hour.
    public static func parse(_ body: [UInt8]) throws(AccessTokenError) -> OAuthTokenResponse {
        let document: JSON
        do {
            document = try JSON.parse(body)
        } catch {
            throw .malformedResponse("not JSON")
        }
        guard let token = document["access_token"]?.stringValue, !token.isEmpty else {
            throw .malformedResponse("no access_token")
        }
        let seconds = document["expires_in"]?.intValue ?? document["expires_in"]?.stringValue.flatMap { Int64($0) }
        return OAuthTokenResponse(accessToken: token, expiresIn: .seconds(max(1, seconds ?? 3600)))
    }

    /// The `error` member of an error answer (`invalid_grant`, …), if readable.
    static func errorCode(_ body: [UInt8]) -> String? {
        (try? JSON.parse(body))?["error"]?.stringValue
    }
}
