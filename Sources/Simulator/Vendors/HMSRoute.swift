/// Huawei Push Kit's paths, the look-alike's credentials and the codes it answers with (docs/vendors.md).
enum HMSRoute {
    static let appID = "sim-hms-app"
    static let clientSecret = "sim-hms-secret"

    static let tokenPath = "/oauth2/v3/token"
    static let sendPrefix = "/v1/"
    static let sendSuffix = "/messages:send"

    static let success = "80000000"
    static let partialSuccess = "80100000"
    static let badParameters = "80100001"
    static let badMessage = "80100003"
    static let authenticationError = "80200001"
    static let tokenExpired = "80200003"
    static let allTokensInvalid = "80300007"
    static let messageTooLarge = "80300008"
    static let tokenCount = "80300010"
    static let internalError = "81000001"
    /// The statistics' name for the look-alike's retry answer, which is an HTTP status rather than a code.
    static let unavailable = "HTTP 503"

    /// The token endpoint's refusals: a wrong client, or a request without the client-credentials parameters.
    static let invalidClient = 1101
    static let missingParameter = 1102
}
