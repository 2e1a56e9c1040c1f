extension ProviderReason {
    /// Reasons that condemn the push itself, not one device: every other device of the push would get the
    /// same answer (a topic the key may not use, a payload too large, credentials the provider refuses). The
    /// push ends `failed` naming the reason instead of sending the same doomed request to every device.
    public var failsWholePush: Bool {
        switch self {
        case .apns(let reason):
            switch reason {
            case .badTopic, .missingTopic, .topicDisallowed, .badCertificate, .badCertificateEnvironment, .forbidden,
                .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyInToken,
                .payloadTooLarge, .payloadEmpty, .invalidPushType, .badPriority, .badExpirationDate, .badCollapseId,
                .expiredProviderToken:
                return true
            default:
                return false
            }
        case .fcm(let code):
            switch code {
            case .thirdPartyAuthError, .permissionDenied, .unauthenticated: return true
            default: return false
            }
        case .wns(let reason):
            switch reason {
            // 401 even with a fresh token: the package SID/secret are refused. 403 is not here: it can be
            // one channel that belongs to another app.
            case .unauthorized, .payloadTooLarge, .accessToken: return true
            default: return false
            }
        case .accessToken:
            return true
        case .httpStatus, .transport, .forbiddenEndpoint:
            return false
        // One vendor's trouble, even with its credentials, is that vendor's devices' errors: a push reaches
        // several vendors and platforms, and the others must still get it.
        case .vendor, .vendorRefusal:
            return false
        }
    }

    /// The provider's name for a push failure status.
    var providerName: String {
        switch self {
        case .apns: "APNs"
        case .fcm, .accessToken: "FCM"
        case .wns: "WNS"
        case .vendor(let reason): reason.vendor.rawValue
        case .httpStatus, .transport, .forbiddenEndpoint, .vendorRefusal: "the provider"
        }
    }
}
