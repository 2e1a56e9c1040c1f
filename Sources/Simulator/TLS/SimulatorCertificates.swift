import Crypto
import Foundation
import SwiftASN1
import X509

/// The simulator's TLS material: a private CA and a server certificate for `localhost`, `127.0.0.1` and `::1`.
///
/// Created on first use and reused afterwards, so a client configured once with `ca_file` keeps working across
/// restarts. If only the server certificate is missing or near expiry it is re-issued by the existing CA.
public struct SimulatorCertificates: Sendable, Hashable {
    public var directory: String
    /// Give this to clients (`apns.ca_file`, `fcm.ca_file`, `curl --cacert`).
    public var caCertificateFile: String
    public var serverCertificateFile: String
    public var serverKeyFile: String
    var caKeyFile: String

    private static let renewalMargin: TimeInterval = 24 * 60 * 60

    init(directory: String) {
        let base = URL(fileURLWithPath: directory)
        self.directory = directory
        self.caCertificateFile = base.appendingPathComponent("ca.pem").path
        self.caKeyFile = base.appendingPathComponent("ca-key.pem").path
        self.serverCertificateFile = base.appendingPathComponent("server.pem").path
        self.serverKeyFile = base.appendingPathComponent("server-key.pem").path
    }

    /// Loads the certificates in `directory`, creating whatever is missing, unreadable or about to expire.
    public static func loadOrCreate(in directory: String, now: Date = Date()) throws -> SimulatorCertificates {
        let files = SimulatorCertificates(directory: directory)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        let (ca, caKey, caIsNew) = try files.loadOrCreateAuthority(now: now)
        if caIsNew || !files.hasUsableServerCertificate(issuedBy: ca, now: now) {
            try files.issueServerCertificate(ca: ca, caKey: caKey, now: now)
        }
        return files
    }

    private func loadOrCreateAuthority(now: Date) throws -> (Certificate, P256.Signing.PrivateKey, Bool) {
        if let pem = try? String(contentsOfFile: self.caCertificateFile, encoding: .utf8),
            let keyPEM = try? String(contentsOfFile: self.caKeyFile, encoding: .utf8),
            let ca = try? Certificate(pemEncoded: pem),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: keyPEM),
            ca.publicKey == Certificate.PublicKey(key.publicKey),
            ca.notValidAfter > now.addingTimeInterval(Self.renewalMargin)
        {
            return (ca, key, false)
        }
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let name = try DistinguishedName {
            OrganizationName("PushLedger")
            CommonName("PushLedger Simulator CA")
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: publicKey)
        }
        let ca = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(10 * 365 * 24 * 3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        try Self.write(key.pemRepresentation, to: self.caKeyFile, permissions: 0o600)
        try Self.write(try ca.serializeAsPEM().pemString + "\n", to: self.caCertificateFile, permissions: 0o644)
        return (ca, key, true)
    }

    private func hasUsableServerCertificate(issuedBy ca: Certificate, now: Date) -> Bool {
        guard let pem = try? String(contentsOfFile: self.serverCertificateFile, encoding: .utf8),
            let keyPEM = try? String(contentsOfFile: self.serverKeyFile, encoding: .utf8),
            let certificate = try? Certificate(pemEncoded: pem),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        else { return false }
        return certificate.publicKey == Certificate.PublicKey(key.publicKey)
            && certificate.issuer == ca.subject
            && ca.publicKey.isValidSignature(certificate.signature, for: certificate)
            && certificate.notValidAfter > now.addingTimeInterval(Self.renewalMargin)
    }

    private func issueServerCertificate(ca: Certificate, caKey: P256.Signing.PrivateKey, now: Date) throws {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let authorityKeyID = try ca.extensions.subjectKeyIdentifier?.keyIdentifier
        let subject = try DistinguishedName {
            OrganizationName("PushLedger")
            CommonName("localhost")
        }
        let loopbackV4 = ASN1OctetString(contentBytes: [127, 0, 0, 1])
        let loopbackV6 = ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1]))
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(loopbackV4), .ipAddress(loopbackV6)])
            SubjectKeyIdentifier(hash: publicKey)
            AuthorityKeyIdentifier(keyIdentifier: authorityKeyID)
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(397 * 24 * 3600),
            issuer: ca.subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(caKey)
        )
        try Self.write(key.pemRepresentation, to: self.serverKeyFile, permissions: 0o600)
        try Self.write(
            try certificate.serializeAsPEM().pemString + "\n", to: self.serverCertificateFile, permissions: 0o644)
    }

    /// Writes through a temporary file and a rename so a concurrently starting simulator never reads half a PEM.
    private static func write(_ text: String, to path: String, permissions: Int) throws {
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: permissions]
            )
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        if rename(temporary, path) != 0 {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
