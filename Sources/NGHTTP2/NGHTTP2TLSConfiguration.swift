/// TLS settings shared by every request of one `NGHTTP2Client`; the same fields as `CurlTLSConfiguration`.
public struct NGHTTP2TLSConfiguration: Sendable, Hashable {
    /// PEM bundle of trusted CAs; `nil` uses the system store.
    public var caFile: String?
    /// PEM client certificate (APNs certificate authentication).
    public var clientCertificateFile: String?
    /// PEM private key for the client certificate; `nil` when the certificate file holds it too.
    public var clientKeyFile: String?
    public var clientKeyPassword: String?
    public var verifyPeer: Bool
    /// Checks the URL's host name (or IP address) against the certificate; only with `verifyPeer`.
    public var verifyHost: Bool

    public init(
        caFile: String? = nil,
        clientCertificateFile: String? = nil,
        clientKeyFile: String? = nil,
        clientKeyPassword: String? = nil,
        verifyPeer: Bool = true,
        verifyHost: Bool = true
    ) {
        self.caFile = caFile
        self.clientCertificateFile = clientCertificateFile
        self.clientKeyFile = clientKeyFile
        self.clientKeyPassword = clientKeyPassword
        self.verifyPeer = verifyPeer
        self.verifyHost = verifyHost
    }
}
