import Curl

/// Why a delivery attempt did not succeed, in the provider's own terms where it gave any.
public enum ProviderReason: Sendable, Hashable, CustomStringConvertible {
    case apns(APNsErrorReason)
    case fcm(FCMErrorCode)
    case wns(WNSErrorReason)
    /// An error status without a readable reason (a proxy's 502 page, say).
    case httpStatus(Int)
    /// No answer: connection, TLS or timeout trouble.
    case transport(TransportFailure)
    /// No OAuth access token could be had for FCM.
    case accessToken(AccessTokenError)
    /// Not sent: the request would have gone where a client, not the provider or the operator, chose (a WNS
    /// channel URI outside the provider's hosts and `wns.allowed_hosts`), or a device's id does not fit where
    /// it goes in the request (SPEC §12.7).
    case forbiddenEndpoint
    /// An Android vendor's answer (SPEC §12.3).
    case vendor(VendorReason)
    /// Not sent: the content does not fit what the vendor takes (`PassThroughUnsupported`, `ContentTooLong`).
    case vendorRefusal(VendorRefusal)

    /// The text recorded in events and reports: Apple's or Google's reason verbatim where there is one, WNS'
    /// status by Microsoft's name for it.
    public var description: String {
        switch self {
        case .apns(let reason): reason.description
        case .fcm(let code): code.description
        case .wns(let reason): reason.description
        case .httpStatus(let status): "HTTP \(status)"
        case .transport(let error): error.description
        case .accessToken(let error): error.description
        case .forbiddenEndpoint: "ForbiddenEndpoint"
        case .vendor(let reason): reason.description
        case .vendorRefusal(let refusal): refusal.description
        }
    }
}
