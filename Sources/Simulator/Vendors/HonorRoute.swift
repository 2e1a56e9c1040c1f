/// Honor Push's paths, the look-alike's credentials and the codes it answers with. Honor's API is HMS's in
/// camelCase without the `message` wrapper, and its codes are HMS's as numbers.
enum HonorRoute {
    static let appID = "sim-honor-app"
    static let clientID = "sim-honor-client"
    static let clientSecret = "sim-honor-secret"

    static let tokenPath = "/auth/token"
    static let sendPrefix = "/api/v1/"
    static let sendSuffix = "/sendMessage"

    static let success = 200
    static let unavailable = "HTTP 503"
}
