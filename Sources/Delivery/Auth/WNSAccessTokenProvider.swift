import Curl
import Foundation
import PushCore

/// WNS' OAuth access token: the app's package SID and secret exchanged with the `client_credentials` grant for
/// the `notify.windows.com` scope (Microsoft's "Authenticating with WNS").
public enum WNSAccessTokenProvider {
    public static let scope = "notify.windows.com"

    public static func make(
        _ configuration: WNSConfiguration, http: CurlClient, clock: ServiceClock = .system
    ) -> OAuthAccessTokenProvider {
        OAuthAccessTokenProvider(http: http, clock: clock) { _ in
            tokenRequest(
                packageSid: configuration.packageSid, secret: configuration.secret,
                tokenEndpoint: configuration.tokenEndpoint, timeout: configuration.requestTimeout)
        }
    }

    /// `grant_type=client_credentials&client_id=<SID>&client_secret=<secret>&scope=notify.windows.com`.
    public static func tokenRequest(
        packageSid: String, secret: String, tokenEndpoint: String, timeout: Duration = .seconds(15)
    ) -> CurlRequest {
        OAuthAccessTokenProvider.clientCredentialsRequest(
            endpoint: tokenEndpoint, clientId: packageSid, secret: secret, scope: scope, timeout: timeout)
    }
}
