import Curl
import NGHTTP2

/// Why a provider request got no HTTP answer, in the words of the library that carried it. Its description is
/// what push records and reports show as the error reason.
public enum TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case nghttp2(NGHTTP2Error)
    case libcurl(CurlError)

    /// Repeating cannot help: TLS set-up or verification, a bad URL, cancellation, shutdown, a request the
    /// library refused.
    public var isPermanent: Bool {
        switch self {
        case .nghttp2(let error):
            switch error {
            case .tls, .invalidRequest, .cancelled, .shutdown: true
            case .connect, .timeout, .reset, .protocolError: false
            }
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
        case .nghttp2(let error): error.description
        case .libcurl(let error): error.description
        }
    }
}
