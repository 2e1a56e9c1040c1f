import Curl

/// Why a provider request got no HTTP answer, in the words of the library that carried it. Its description is
/// what push records and reports show as the error reason.
public enum TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case libcurl(CurlError)

    /// Repeating cannot help: TLS set-up, a bad URL, cancellation, shutdown, a request the library refused.
    public var isPermanent: Bool {
        switch self {
        case .libcurl(let error):
            switch error {
            case .cancelled, .shutdown, .invalidRequest: true
            case .transfer(let code, _, _):
                code.isTLSConfigurationProblem || code == .urlMalformed || code == .unsupportedProtocol
            }
        }
    }

    public var description: String {
        switch self {
        case .libcurl(let error): error.description
        }
    }
}
