import CCurl
import Foundation
import HTTP2TestSupport
import Testing

@testable import Curl

#if canImport(Glibc)
    import Glibc
#endif

/// The driver corks its connections only while `curl_multi_perform` runs (`CurlSocketCork`). What must hold:
/// it knows every socket libcurl opens and forgets (and closes) each one libcurl lets go of, so it never
/// corks a descriptor that now belongs to something else; and a request sent alone is not held back.
@Suite("CurlSocketCork", .enabled(if: Nghttpd.isInstalled, "needs nghttp2-server"))
struct CurlSocketCorkTests {
    /// What `socket` refers to (device and inode), or nil when the descriptor is closed. "Closed" is checked
    /// against this rather than the number: the suites run in parallel, and a descriptor's number can be
    /// handed to another test's socket or file as soon as it is closed.
    private static func identity(_ socket: Int32) -> [UInt64]? {
        var info = stat()
        guard fstat(socket, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    private static func transfer(cork: CurlSocketCork) throws -> CurlTransfer {
        try CurlTransfer(
            configuration: CurlConfiguration(tls: CurlTLSConfiguration(caFile: TestCertificates.shared.caFile)),
            cork: cork)
    }

    @Test func theConnectionIsKnownWhileOpenAndClosedWithItsHandle() throws {
        let server = try Nghttpd(files: ["hello.txt": "hello\n"])
        defer { server.stop() }
        let cork = CurlSocketCork()
        var transfer: CurlTransfer? = try Self.transfer(cork: cork)
        try transfer!.prepare(CurlRequest(url: server.baseURL + "/hello.txt"), timeoutMilliseconds: 10_000)
        #expect(curl_easy_perform(transfer!.easy) == CURLE_OK)
        try transfer!.prepare(CurlRequest(url: server.baseURL + "/hello.txt"), timeoutMilliseconds: 10_000)
        #expect(curl_easy_perform(transfer!.easy) == CURLE_OK)
        // Two requests, one kept-alive connection.
        #expect(cork.opened == 1 && cork.sockets.count == 1)
        let socket = try #require(cork.sockets.first)
        let connection = try #require(Self.identity(socket))
        transfer = nil
        #expect(cork.sockets.isEmpty)
        #expect(Self.identity(socket) != connection)
    }

    @Test func aSocketThatNeverConnectsIsForgottenAndClosed() throws {
        let cork = CurlSocketCork()
        let transfer = try Self.transfer(cork: cork)
        try transfer.prepare(CurlRequest(url: "https://127.0.0.1:\(LocalPort.free())/x"), timeoutMilliseconds: 10_000)
        #expect(curl_easy_perform(transfer.easy) == CURLE_COULDNT_CONNECT)
        #expect(cork.opened == 1)
        #expect(cork.sockets.isEmpty)
    }

    /// Corked sockets send a partial segment only when uncorked or after Linux's 200 ms ceiling: if the
    /// driver left its connection corked after `perform`, every lone request would wait that long.
    @Test func aLoneRequestIsNotHeldBack() async throws {
        let server = try Nghttpd(files: ["echo": ""])
        defer { server.stop() }
        let client = try CurlClient(
            configuration: CurlConfiguration(
                tls: CurlTLSConfiguration(caFile: TestCertificates.shared.caFile), driverThreads: 1))
        let url = server.baseURL + "/echo"
        _ = try await client.send(CurlRequest(method: .post, url: url, body: Array("warm-up".utf8)))
        var durations: [Duration] = []
        for i in 0..<15 {
            let started = ContinuousClock.now
            let response = try await client.send(CurlRequest(method: .post, url: url, body: Array("lone \(i)".utf8)))
            durations.append(ContinuousClock.now - started)
            #expect(response.status == 200)
            #expect(response.body == Array("lone \(i)".utf8))
        }
        await client.shutdown()
        // A cork left on holds back every lone request by 200 ms; a busy machine (the suites run in parallel)
        // slows some of them, never all: so the fastest of the fifteen is what tells.
        #expect(durations.min()! < .milliseconds(100))
    }
}
