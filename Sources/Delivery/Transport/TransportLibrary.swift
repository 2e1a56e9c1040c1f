/// The HTTP/2 library the per-device providers (APNs, FCM) send through: `serve --transport`,
/// `PUSHLEDGER_TRANSPORT`. Token endpoints, WNS and the list-taking Android vendors always use libcurl.
public enum TransportLibrary: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case libcurl

    public static let standard = TransportLibrary.libcurl

    public var description: String { rawValue }
}
