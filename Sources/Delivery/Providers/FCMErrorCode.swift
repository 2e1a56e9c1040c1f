/// FCM HTTP v1 `FcmError.errorCode`, or the `google.rpc` status when no FCM code came; unrecognised codes are
/// kept as `unknown`.
public enum FCMErrorCode: Sendable, Hashable, CustomStringConvertible {
    case unspecifiedError
    case invalidArgument
    case unregistered
    case senderIdMismatch
    case quotaExceeded
    case unavailable
    case internalError
    case thirdPartyAuthError
    /// `google.rpc` statuses seen without an FCM code.
    case notFound
    case unauthenticated
    case permissionDenied
    case unknown(String)

    private static let known: [String: FCMErrorCode] = [
        "UNSPECIFIED_ERROR": .unspecifiedError, "INVALID_ARGUMENT": .invalidArgument,
        "UNREGISTERED": .unregistered, "SENDER_ID_MISMATCH": .senderIdMismatch,
        "QUOTA_EXCEEDED": .quotaExceeded, "UNAVAILABLE": .unavailable, "INTERNAL": .internalError,
        "THIRD_PARTY_AUTH_ERROR": .thirdPartyAuthError, "NOT_FOUND": .notFound,
        "UNAUTHENTICATED": .unauthenticated, "PERMISSION_DENIED": .permissionDenied,
    ]
    private static let names: [FCMErrorCode: String] = Dictionary(
        uniqueKeysWithValues: known.map { ($0.value, $0.key) }
    )

    public init(_ code: String) {
        self = Self.known[code] ?? .unknown(code)
    }

    /// Google's spelling.
    public var description: String {
        if case .unknown(let code) = self { return code }
        return Self.names[self]!
    }
}
