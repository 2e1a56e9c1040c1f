/// The `reason` of an APNs error answer, as Apple documents it; anything else is kept as `unknown`.
public enum APNsErrorReason: Sendable, Hashable, CustomStringConvertible {
    case badCollapseId
    case badDeviceToken
    case badExpirationDate
    case badMessageId
    case badPriority
    case badTopic
    case deviceTokenNotForTopic
    case duplicateHeaders
    case idleTimeout
    case invalidPushType
    case missingDeviceToken
    case missingTopic
    case payloadEmpty
    case topicDisallowed
    case badCertificate
    case badCertificateEnvironment
    case expiredProviderToken
    case forbidden
    case invalidProviderToken
    case missingProviderToken
    case unrelatedKeyIdInToken
    case badEnvironmentKeyInToken
    case badPath
    case methodNotAllowed
    case expiredToken
    case unregistered
    case payloadTooLarge
    case tooManyProviderTokenUpdates
    case tooManyRequests
    case internalServerError
    case serviceUnavailable
    case shutdown
    case unknown(String)

    private static let known: [String: APNsErrorReason] = [
        "BadCollapseId": .badCollapseId, "BadDeviceToken": .badDeviceToken,
        "BadExpirationDate": .badExpirationDate, "BadMessageId": .badMessageId, "BadPriority": .badPriority,
        "BadTopic": .badTopic, "DeviceTokenNotForTopic": .deviceTokenNotForTopic,
        "DuplicateHeaders": .duplicateHeaders, "IdleTimeout": .idleTimeout, "InvalidPushType": .invalidPushType,
        "MissingDeviceToken": .missingDeviceToken, "MissingTopic": .missingTopic, "PayloadEmpty": .payloadEmpty,
        "TopicDisallowed": .topicDisallowed, "BadCertificate": .badCertificate,
        "BadCertificateEnvironment": .badCertificateEnvironment, "ExpiredProviderToken": .expiredProviderToken,
        "Forbidden": .forbidden, "InvalidProviderToken": .invalidProviderToken,
        "MissingProviderToken": .missingProviderToken, "UnrelatedKeyIdInToken": .unrelatedKeyIdInToken,
        "BadEnvironmentKeyInToken": .badEnvironmentKeyInToken, "BadPath": .badPath,
        "MethodNotAllowed": .methodNotAllowed, "ExpiredToken": .expiredToken, "Unregistered": .unregistered,
        "PayloadTooLarge": .payloadTooLarge, "TooManyProviderTokenUpdates": .tooManyProviderTokenUpdates,
        "TooManyRequests": .tooManyRequests, "InternalServerError": .internalServerError,
        "ServiceUnavailable": .serviceUnavailable, "Shutdown": .shutdown,
    ]
    private static let names: [APNsErrorReason: String] = Dictionary(
        uniqueKeysWithValues: known.map { ($0.value, $0.key) }
    )

    public init(_ reason: String) {
        self = Self.known[reason] ?? .unknown(reason)
    }

    /// Apple's spelling.
    public var description: String {
        if case .unknown(let reason) = self { return reason }
        return Self.names[self]!
    }
}
