import Foundation
import Simulator
import Testing

@Suite("TLS, ALPN and certificates")
struct TLSTests {
    @Test("curl verifies the chain against the generated CA and negotiates h2")
    func negotiatesHTTP2WithVerifiedCertificate() async throws {
        try await SimulatorHarness.with { simulator in
            let output = try CommandLineTool.run(
                "curl",
                [
                    "--http2", "--cacert", simulator.info.caFile, "-sS", "-v", "-o", "/dev/null",
                    "-w", "%{http_version} %{ssl_verify_result}", simulator.baseURL + "/_sim/stats",
                ]
            )
            #expect(output.exitCode == 0)
            #expect(output.standardOutput == "2 0")
            #expect(output.standardError.contains("ALPN: server accepted h2"))
        }
    }

    @Test("without the CA, curl refuses the certificate")
    func untrustedWithoutCA() async throws {
        try await SimulatorHarness.with { simulator in
            let output = try CommandLineTool.run("curl", ["-sS", "-o", "/dev/null", simulator.baseURL + "/_sim/stats"])
            #expect(output.exitCode == 60)
        }
    }

    @Test("the certificate names localhost as well as 127.0.0.1")
    func localhostNameVerifies() async throws {
        try await SimulatorHarness.with { simulator in
            let output = try CommandLineTool.run(
                "curl",
                [
                    "--cacert", simulator.info.caFile, "-sS", "-o", "/dev/null", "-w", "%{http_code}",
                    "https://localhost:\(simulator.info.port)/_sim/stats",
                ]
            )
            #expect(output.exitCode == 0)
            #expect(output.standardOutput == "200")
        }
    }

    @Test("HTTP/1.1 clients reach the control endpoints")
    func http1ControlEndpoints() async throws {
        try await SimulatorHarness.with { simulator in
            let response = try simulator.request("GET", "/_sim/info", http1: true)
            #expect(response.httpVersion == "HTTP/1.1")
            #expect(response.status == 200)
            #expect(try response.json["port"] as? Int == simulator.info.port)
        }
    }

    @Test("certificates are reused, and openssl verifies the server certificate against the CA")
    func certificatesAreReused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("certs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try SimulatorCertificates.loadOrCreate(in: directory)
        let ca = try String(contentsOfFile: first.caCertificateFile, encoding: .utf8)
        let leaf = try String(contentsOfFile: first.serverCertificateFile, encoding: .utf8)
        let second = try SimulatorCertificates.loadOrCreate(in: directory)
        #expect(try String(contentsOfFile: second.caCertificateFile, encoding: .utf8) == ca)
        #expect(try String(contentsOfFile: second.serverCertificateFile, encoding: .utf8) == leaf)

        let verify = try CommandLineTool.run(
            "openssl", ["verify", "-CAfile", first.caCertificateFile, first.serverCertificateFile])
        #expect(verify.exitCode == 0)
        let text = try CommandLineTool.run("openssl", ["x509", "-noout", "-text", "-in", first.serverCertificateFile])
        #expect(text.standardOutput.contains("DNS:localhost"))
        #expect(text.standardOutput.contains("IP Address:127.0.0.1"))
        #expect(text.standardOutput.contains("IP Address:0:0:0:0:0:0:0:1"))
    }

    @Test("a missing server certificate is re-issued by the existing CA")
    func reissuesServerCertificate() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("certs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try SimulatorCertificates.loadOrCreate(in: directory)
        let ca = try String(contentsOfFile: first.caCertificateFile, encoding: .utf8)
        try FileManager.default.removeItem(atPath: first.serverCertificateFile)
        let second = try SimulatorCertificates.loadOrCreate(in: directory)
        #expect(try String(contentsOfFile: second.caCertificateFile, encoding: .utf8) == ca)
        let verify = try CommandLineTool.run(
            "openssl", ["verify", "-CAfile", second.caCertificateFile, second.serverCertificateFile])
        #expect(verify.exitCode == 0)
    }
}
