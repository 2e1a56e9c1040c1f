import Curl
import Foundation
import HTTPTypes
import PushCore

/// Classifies an FCM HTTP v1 answer. Pure, so every status/code pair is unit-tested without a server.
///
/// Errors are `google.rpc.Status` objects: `{"error": {"code", "status", "message", "details": [{"@type":
/// "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": …}, …]}}`.
public enum FCMResponseMapping {
    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// `headers` is evaluated only for an error (its `Retry-After`): a `CurlResponse` parses its header lines
    /// on each read, and a delivered message needs none of them.
    public static func outcome(
        status: Int, headers: @autoclosure () -> HTTPFields, body: [UInt8], now: Date = Date()
    )
        -> DeliveryOutcome
    {
        let document = body.isEmpty ? nil : try? JSON.parse(body)
        if status == 200 { return .success(id: document?["name"]?.stringValue ?? "") }
        let headers = headers()
        let error = document?["error"]
        let details = error?["details"]?.arrayValue ?? []
        let errorCode = details.first { $0["@type"]?.stringValue == fcmErrorType }?["errorCode"]?.stringValue
        let code = (errorCode ?? error?["status"]?.stringValue).map(FCMErrorCode.init)
        let reason: ProviderReason = code.map { .fcm($0) } ?? .httpStatus(status)
        let retryAfter = headers[.retryAfter].flatMap { RetryAfter.parse($0, now: now) }

        switch (status, code) {
        case (_, .unregistered?):
            return .invalidToken(reason: reason, since: nil)
        case (400, .invalidArgument?) where isAboutTheToken(error):
            return .invalidToken(reason: reason, since: nil)
        case (401, .thirdPartyAuthError?):
            // Firebase's own APNs/Web Push credentials failed: ours are fine, a new access token will not help.
            return .permanent(reason: reason)
        case (401, _):
            return .expiredProviderToken(reason: reason)
        case (429, _), (500..<600, _), (_, .quotaExceeded?), (_, .unavailable?), (_, .internalError?):
            return .retryable(reason: reason, retryAfter: retryAfter)
        default:
            return .permanent(reason: reason)
        }
    }

    /// INVALID_ARGUMENT covers any malformed field; only a bad registration token invalidates the installation.
    /// Google flags it with a `message.token` field violation, or at least says so in the message.
    static func isAboutTheToken(_ error: JSON?) -> Bool {
        for detail in error?["details"]?.arrayValue ?? [] where detail["@type"]?.stringValue == badRequestType {
            for violation in detail["fieldViolations"]?.arrayValue ?? [] {
                if violation["field"]?.stringValue == "message.token" { return true }
            }
        }
        return error?["message"]?.stringValue?.lowercased().contains("registration token") ?? false
    }
}
