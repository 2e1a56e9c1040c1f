/// Constants of the FCM HTTP v1 API that the look-alike enforces.
enum FCMRoute {
    static let prefix = "/v1/projects/"
    static let suffix = "/messages:send"
    static let errorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

    /// Google's canonical status for an HTTP status.
    static func status(for code: Int) -> String {
        switch code {
        case 400: return "INVALID_ARGUMENT"
        case 401: return "UNAUTHENTICATED"
        case 403: return "PERMISSION_DENIED"
        case 404: return "NOT_FOUND"
        case 429: return "RESOURCE_EXHAUSTED"
        case 500: return "INTERNAL"
        case 503: return "UNAVAILABLE"
        default: return "UNKNOWN"
        }
    }

    /// The message text FCM uses with each `errorCode`.
    static func message(for errorCode: String) -> String {
        switch errorCode {
        case "UNREGISTERED": return "Requested entity was not found."
        case "INVALID_ARGUMENT": return "The registration token is not a valid FCM registration token"
        case "SENDER_ID_MISMATCH": return "SenderId mismatch"
        case "QUOTA_EXCEEDED": return "Quota exceeded for the device token."
        case "UNAVAILABLE": return "The service is currently unavailable."
        case "INTERNAL": return "Internal error encountered."
        case "THIRD_PARTY_AUTH_ERROR": return "Auth error from APNS or Web Push Service"
        default: return "Request contains an invalid argument."
        }
    }

    static let unauthenticatedMessage =
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid "
        + "authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
}
