import Curl

/// Why a provider client could not be built: unreadable credentials or an HTTP client its library refused.
public enum DeliverySetupError: Error, Sendable, Hashable, CustomStringConvertible {
    case credentials(CredentialError)
    case http(TransportFailure)

    public var description: String {
        switch self {
        case .credentials(let error): error.description
        case .http(let error): error.description
        }
    }
}
