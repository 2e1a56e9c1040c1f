import NIOSSL

/// TLS for `serve`'s port (REST API and the own device channel alike): a PEM certificate chain and its key.
public struct ServerTLS: Sendable {
    public var certificateFile: String
    public var keyFile: String

    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// Reads both files now, so a bad path or PEM stops `serve` at start with the file named.
    func configuration() throws(ServerTLSError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw ServerTLSError("cannot read the TLS certificate \(certificateFile): \(error)")
        }
        guard !chain.isEmpty else { throw ServerTLSError("no PEM certificate in \(certificateFile)") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw ServerTLSError("cannot read the TLS key \(keyFile): \(error)")
        }
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}

public struct ServerTLSError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
