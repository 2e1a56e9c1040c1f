import HTTP2TestSupport
import HTTPTypes
import Testing

@testable import NGHTTP2

@Suite("NGHTTP2Client: TLS", .enabled(if: Nghttpd.isInstalled, "needs nghttp2-server"), .timeLimit(.minutes(2)))
struct NGHTTP2TLSTests {
    @Test func aCertificateFromAnotherAuthorityIsRefusedOnce() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(caFile: TestCertificates.shared.otherCAFile)
        let result = await client.send(all: [NGHTTP2Request(url: server.baseURL + "/hello.txt")])[0]
        let statistics = client.statistics
        await client.shutdown()
        guard case .tls(let reason) = result.error else {
            Issue.record("expected a TLS failure, got \(result)")
            return
        }
        #expect(reason.contains("certificate"))
        #expect(result.error?.isConfigurationProblem == true)
        #expect(statistics.retries == 0, "a refused certificate is refused again: no retries")
    }

    @Test func aCertificateForAnotherHostIsRefusedUnlessHostChecksAreOff() async throws {
        let certificates = TestCertificates.shared
        let server = try Nghttpd(
            certificate: (certificates.otherHostCertificate, certificates.otherHostKey))
        defer { server.stop() }
        let checking = try makeClient()
        let refused = await checking.send(all: [NGHTTP2Request(url: server.baseURL + "/hello.txt")])[0]
        await checking.shutdown()
        guard case .tls(let reason) = refused.error else {
            Issue.record("expected a TLS failure, got \(refused)")
            return
        }
        #expect(reason.contains("mismatch"))
        // Same CA, no host check: only the host name was wrong.
        let trusting = try makeClient(tls: NGHTTP2TLSConfiguration(caFile: certificates.caFile, verifyHost: false))
        let response = try await trusting.send(NGHTTP2Request(url: server.baseURL + "/hello.txt"))
        await trusting.shutdown()
        #expect(response.status == 200)
    }

    @Test func aServerWithoutHTTP2IsRefused() async throws {
        let server = try OpenSSLServer()
        defer { server.stop() }
        let client = try makeClient()
        let result = await client.send(all: [NGHTTP2Request(url: "https://127.0.0.1:\(server.port)/")])[0]
        let statistics = client.statistics
        await client.shutdown()
        guard case .tls(let reason) = result.error else {
            Issue.record("expected a TLS failure, got \(result)")
            return
        }
        #expect(reason.contains("HTTP/2"))
        #expect(statistics.connectionsOpened == 0 && statistics.retries == 0)
    }

    @Test func aClientCertificateIsPresentedAndItsAbsenceRefused() async throws {
        let server = try Nghttpd(extraArguments: ["--verify-client"])
        defer { server.stop() }
        let certificates = TestCertificates.shared
        let withCertificate = try makeClient(
            tls: NGHTTP2TLSConfiguration(
                caFile: certificates.caFile, clientCertificateFile: certificates.clientCertificate,
                clientKeyFile: certificates.clientKey))
        let response = try await withCertificate.send(NGHTTP2Request(url: server.baseURL + "/hello.txt"))
        await withCertificate.shutdown()
        #expect(response.status == 200)

        let without = try makeClient()
        let refused = await without.send(all: [NGHTTP2Request(url: server.baseURL + "/hello.txt")])[0]
        await without.shutdown()
        guard case .tls(let reason) = refused.error else {
            Issue.record("expected a TLS failure, got \(refused)")
            return
        }
        #expect(reason.contains("certificate"))
    }

    @Test func anEncryptedClientKeyIsOpenedWithItsPassword() async throws {
        let server = try Nghttpd(extraArguments: ["--verify-client"])
        defer { server.stop() }
        let certificates = TestCertificates.shared
        func tls(password: String?) -> NGHTTP2TLSConfiguration {
            NGHTTP2TLSConfiguration(
                caFile: certificates.caFile, clientCertificateFile: certificates.clientCertificate,
                clientKeyFile: certificates.encryptedClientKey, clientKeyPassword: password)
        }
        let client = try makeClient(tls: tls(password: certificates.clientKeyPassword))
        let response = try await client.send(NGHTTP2Request(url: server.baseURL + "/hello.txt"))
        await client.shutdown()
        #expect(response.status == 200)
        // A wrong password, or none (which must not prompt on a terminal), fails the client's creation.
        for password in ["wrong", nil] {
            #expect {
                _ = try makeClient(tls: tls(password: password))
            } throws: { error in
                guard case .tls(let reason) = error as? NGHTTP2Error else { return false }
                return reason.contains("client key")
            }
        }
    }

    @Test func withoutPeerVerificationAnyCertificateIsAccepted() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(
            tls: NGHTTP2TLSConfiguration(caFile: TestCertificates.shared.otherCAFile, verifyPeer: false))
        let response = try await client.send(NGHTTP2Request(url: server.baseURL + "/hello.txt"))
        await client.shutdown()
        #expect(response.status == 200)
    }

    @Test func anUnreadableCAFileFailsTheClientsCreation() {
        #expect {
            _ = try makeClient(caFile: "/nonexistent/ca.pem")
        } throws: { error in
            guard case .tls(let reason) = error as? NGHTTP2Error else { return false }
            return reason.contains("/nonexistent/ca.pem")
        }
    }
}
