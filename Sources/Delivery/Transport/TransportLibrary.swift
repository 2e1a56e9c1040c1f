/// The HTTP/2 library the per-device providers (APNs, FCM) send through: `serve --transport`,
/// `PUSHLEDGER_TRANSPORT`. Token endpoints, WNS and the list-taking Android vendors always use libcurl.
public enum TransportLibrary: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// libnghttp2 and OpenSSL on the project's own event loop (`NGHTTP2`): the default, at a fraction of
    /// libcurl's CPU per request (docs/decisions.md, "The hot path's HTTP/2 transport").
    case nghttp2
    /// libcurl's multi interface (`Curl`), which also carries everything that is not a per-device send.
    case libcurl

    public static let standard = TransportLibrary.nghttp2

    public var description: String { rawValue }
}
