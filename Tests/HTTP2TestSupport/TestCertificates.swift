import Foundation

/// A throw-away CA, a server certificate for 127.0.0.1/localhost signed by it, a client certificate, and an
/// unrelated CA, made once per test run with the `openssl` CLI.
public struct TestCertificates: Sendable {
    public let directory: String
    public var caFile: String { directory + "/ca.pem" }
    public var serverCertificate: String { directory + "/server.pem" }
    public var serverKey: String { directory + "/server.key" }
    public var clientCertificate: String { directory + "/client.pem" }
    public var clientKey: String { directory + "/client.key" }
    public var otherCAFile: String { directory + "/other-ca.pem" }
    /// A server certificate from the test CA for another name only (`elsewhere.invalid`): a client that checks
    /// host names refuses it at 127.0.0.1 or localhost.
    public var otherHostCertificate: String { directory + "/other-host.pem" }
    public var otherHostKey: String { directory + "/other-host.key" }
    /// `clientKey` encrypted (AES-256) with `clientKeyPassword`.
    public var encryptedClientKey: String { directory + "/client-encrypted.key" }
    public var clientKeyPassword: String { "test-password" }

    public static let shared: TestCertificates = {
        let directory = NSTemporaryDirectory() + "curl-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        certificates.generate()
        certificates.generateOtherHost()
        return certificates
    }()

    private func generate() {
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let ext = directory + "/server.ext"
        try! "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: ext, atomically: true, encoding: .utf8)
        openssl(["req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Test CA"])
        openssl(
            ["req", "-x509"] + ec + [
                "-keyout", "other-ca.key", "-out", "other-ca.pem", "-days", "2",
                "-subj", "/CN=Other CA",
            ])
        for (name, subject) in [("server", "/CN=localhost"), ("client", "/CN=Test Client")] {
            openssl(["req"] + ec + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject])
            openssl(
                [
                    "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                    "-out", "\(name).pem", "-days", "2",
                ] + (name == "server" ? ["-extfile", ext] : []))
        }
    }

    private func generateOtherHost() {
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let ext = directory + "/other-host.ext"
        try! "subjectAltName=DNS:elsewhere.invalid\n".write(toFile: ext, atomically: true, encoding: .utf8)
        openssl(
            ["req"] + ec + ["-keyout", "other-host.key", "-out", "other-host.csr", "-subj", "/CN=elsewhere.invalid"])
        openssl([
            "x509", "-req", "-in", "other-host.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "other-host.pem", "-days", "2", "-extfile", ext,
        ])
        openssl([
            "pkey", "-in", "client.key", "-aes256", "-passout", "pass:\(clientKeyPassword)", "-out",
            "client-encrypted.key",
        ])
    }

    private func openssl(_ arguments: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try! process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " ")) failed")
    }
}
