import CCurl

/// A libcurl `CURLcode`, kept as its number so callers need not import the C module.
public struct CurlCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    init(_ code: CURLcode) { self.rawValue = Int32(code.rawValue) }

    public static let ok = CurlCode(CURLE_OK)
    public static let couldNotResolveHost = CurlCode(CURLE_COULDNT_RESOLVE_HOST)
    public static let couldNotConnect = CurlCode(CURLE_COULDNT_CONNECT)
    public static let http2 = CurlCode(CURLE_HTTP2)
    public static let http2Stream = CurlCode(CURLE_HTTP2_STREAM)
    public static let operationTimedOut = CurlCode(CURLE_OPERATION_TIMEDOUT)
    public static let sslConnectError = CurlCode(CURLE_SSL_CONNECT_ERROR)
    public static let gotNothing = CurlCode(CURLE_GOT_NOTHING)
    public static let sendError = CurlCode(CURLE_SEND_ERROR)
    public static let recvError = CurlCode(CURLE_RECV_ERROR)
    public static let peerFailedVerification = CurlCode(CURLE_PEER_FAILED_VERIFICATION)
    public static let sslCertificateProblem = CurlCode(CURLE_SSL_CERTPROBLEM)
    public static let sslCACertificateBadFile = CurlCode(CURLE_SSL_CACERT_BADFILE)
    public static let urlMalformed = CurlCode(CURLE_URL_MALFORMAT)
    public static let unsupportedProtocol = CurlCode(CURLE_UNSUPPORTED_PROTOCOL)

    /// libcurl's own short text for the code.
    public var description: String {
        String(cString: curl_easy_strerror(CURLcode(UInt32(bitPattern: rawValue))))
    }

    /// Failures that say the local TLS setup (certificates, keys, CA file) or the peer's identity is wrong:
    /// retrying cannot help.
    public var isTLSConfigurationProblem: Bool {
        self == .peerFailedVerification || self == .sslCertificateProblem || self == .sslCACertificateBadFile
            || rawValue == Int32(CURLE_SSL_CIPHER.rawValue) || rawValue == Int32(CURLE_SSL_CRL_BADFILE.rawValue)
            || rawValue == Int32(CURLE_SSL_ISSUER_ERROR.rawValue)
    }
}
