/// Why provider credentials could not be loaded: a configuration problem, reported at start-up.
public enum CredentialError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadableFile(path: String, reason: String)
    /// The key is not a PEM PKCS#8 EC P-256 key (APNs) or a PEM RSA key of at least 2048 bits (FCM).
    case invalidKey(String)
    /// A service-account JSON file lacks `client_email`, `private_key` or `token_uri`.
    case invalidServiceAccount(String)
    /// OAuth client credentials (WNS' package SID and secret) that cannot be used as they are.
    case invalidClientCredentials(String)
    /// The refresh age lies outside Apple's 20–60 minute window.
    case invalidRefreshAge(Duration)

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason): "cannot read \(path): \(reason)"
        case .invalidKey(let reason): "invalid private key: \(reason)"
        case .invalidServiceAccount(let reason): "invalid service account: \(reason)"
        case .invalidClientCredentials(let reason): "invalid client credentials: \(reason)"
        case .invalidRefreshAge(let age): "provider token refresh age \(age) is outside 20–60 minutes"
        }
    }
}
