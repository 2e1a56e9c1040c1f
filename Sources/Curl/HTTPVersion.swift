/// The HTTP version a response came over, as libcurl reports it.
public enum HTTPVersion: Sendable, Hashable {
    case http1_0
    case http1_1
    case http2
    case http3
    case unknown
}
