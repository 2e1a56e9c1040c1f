import Foundation
import HTTPTypes

/// Classifies a WNS answer by its status (Microsoft's "Push notification service request and response
/// headers"). Pure, so every status is unit-tested without a server.
public enum WNSResponseMapping {
    public static func outcome(status: Int, headers: HTTPFields, now: Date = Date()) -> DeliveryOutcome {
        let reason = ProviderReason.wns(WNSErrorReason(status: status))
        switch status {
        case 200:
            return .success(id: headers[.wnsMessageId] ?? "")
        case 404, 410:
            // The channel is gone for good; the app asks Windows for a new one and registers it again.
            return .invalidToken(reason: reason, since: nil)
        case 401, 403:
            // 401: the token expired or was revoked. 403 can also mean a channel of another app, but a fresh
            // token is the only remedy to try, and the retry policy allows one refresh per notification.
            return .expiredProviderToken(reason: reason)
        case 406, 429, 500..<600:
            let retryAfter = headers[.retryAfter].flatMap { RetryAfter.parse($0, now: now) }
            return .retryable(reason: reason, retryAfter: retryAfter)
        default:
            // 400, 405, 413, …: the same request cannot succeed.
            return .permanent(reason: reason)
        }
    }
}
