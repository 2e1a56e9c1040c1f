import Curl
import Foundation
import PushCore

/// FCM's OAuth access token: a signed service-account assertion exchanged with the `jwt-bearer` grant.
public enum FCMAccessTokenProvider {
    public static func make(
        signer: FCMAssertionSigner,
        tokenEndpoint: String,
        http: CurlClient,
        timeout: Duration = .seconds(15),
        refreshMargin: Duration = .seconds(300),
        clock: ServiceClock = .system
    ) -> OAuthAccessTokenProvider {
        OAuthAccessTokenProvider(http: http, refreshMargin: refreshMargin, clock: clock) { now in
            OAuthAccessTokenProvider.formRequest(
                endpoint: tokenEndpoint,
                form: [
                    ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                    ("assertion", signer.assertion(audience: tokenEndpoint, issuedAt: now)),
                ],
                timeout: timeout)
        }
    }
}
