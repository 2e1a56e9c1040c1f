import Foundation
import HTTP2TestSupport
import HTTPTypes
import Testing

@testable import Curl

#if canImport(Glibc)
    import Glibc
#endif

@Suite("CurlClient against nghttpd over TLS", .enabled(if: Nghttpd.isInstalled, "needs nghttp2-server"))
struct CurlClientTests {
    private func makeClient(
        caFile: String = TestCertificates.shared.caFile,
        maxHostConnections: Int = 2
    ) throws -> CurlClient {
        try CurlClient(
            configuration: CurlConfiguration(
                tls: CurlTLSConfiguration(caFile: caFile),
                maxHostConnections: maxHostConnections,
                maxTotalConnections: maxHostConnections
            )
        )
    }

    @Test func getReturnsBodyStatusAndLowerCasedHeadersOverHTTP2() async throws {
        let server = try Nghttpd(files: ["hello.txt": "hello\n"])
        defer { server.stop() }
        let client = try makeClient()
        let response = try await client.send(CurlRequest(url: server.baseURL + "/hello.txt"))
        await client.shutdown()
        #expect(response.status == 200)
        #expect(response.version == .http2)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello\n")
        #expect(response.headers[HTTPField.Name("content-length")!] == "6")
        #expect(response.headers.contains { $0.name.canonicalName == "server" })
    }

    @Test func twoHundredConcurrentGetsShareFewConnections() async throws {
        let server = try Nghttpd(files: ["hello.txt": "hello\n"])
        defer { server.stop() }
        let client = try makeClient(maxHostConnections: 2)
        let url = server.baseURL + "/hello.txt"
        let versions = try await withThrowingTaskGroup(of: (Int, HTTPVersion).self) { group in
            for _ in 0..<200 {
                group.addTask {
                    let response = try await client.send(CurlRequest(url: url))
                    return (response.status, response.version)
                }
            }
            var all: [(Int, HTTPVersion)] = []
            for try await result in group { all.append(result) }
            return all
        }
        let statistics = client.statistics
        await client.shutdown()
        #expect(versions.count == 200)
        #expect(versions.allSatisfy { $0.0 == 200 && $0.1 == .http2 })
        #expect(statistics.connectionsOpened >= 1 && statistics.connectionsOpened <= 2)
        #expect(statistics.requests == 200 && statistics.responses == 200 && statistics.failures == 0)
    }

    @Test func postBodyIsSentAndEchoed() async throws {
        let server = try Nghttpd(files: ["echo": ""])
        defer { server.stop() }
        let client = try makeClient()
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 5000)
        let response = try await client.send(
            CurlRequest(
                method: .post, url: server.baseURL + "/echo",
                headers: [HTTPField.Name("content-type")!: "application/json"],
                body: payload
            )
        )
        // A second request on the same reused handle must not inherit the POST.
        let get = try await client.send(CurlRequest(url: server.baseURL + "/echo"))
        await client.shutdown()
        #expect(response.status == 200)
        #expect(response.body == payload)
        #expect(get.status == 200)
        #expect(get.body.isEmpty)
    }

    /// A fan-out's chunk: one submission, one resumption, every result in the order of its request, with
    /// the lines shared by all of them sent from one `CurlHeaderBlock` after each request's own.
    @Test func sendAllAnswersEveryRequestInOrderWithSharedHeaderLines() async throws {
        let server = try Nghttpd(files: ["a.txt": "a", "b.txt": "bb"])
        defer { server.stop() }
        let client = try makeClient()
        let shared = CurlHeaderBlock([HTTPField.Name("x-shared")!: "1", HTTPField.Name("x-empty")!: ""])
        let paths = (0..<300).map { ["/a.txt", "/missing", "/b.txt"][$0 % 3] }
        let results = await client.send(
            all: paths.enumerated().map { index, path in
                CurlRequest(
                    url: server.baseURL + path, headers: [HTTPField.Name("x-own")!: "\(index)"], sharedHeaders: shared)
            })
        let again = await client.send(all: [CurlRequest(url: server.baseURL + "/a.txt", sharedHeaders: shared)])
        let statistics = client.statistics
        await client.shutdown()
        #expect(results.count == 300)
        for (result, path) in zip(results, paths) {
            let response = try result.get()
            switch path {
            case "/a.txt": #expect(response.status == 200 && response.body == Array("a".utf8))
            case "/b.txt": #expect(response.status == 200 && response.body == Array("bb".utf8))
            default: #expect(response.status == 404)
            }
        }
        #expect(try again.map { try $0.get().body } == [Array("a".utf8)])
        #expect(statistics.requests == 301 && statistics.responses == 301 && statistics.failures == 0)
        #expect(shared.count == 3)
    }

    @Test func sendAllOfACancelledTaskRefusesEveryRequest() async throws {
        let client = try makeClient()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await client.send(all: (0..<5).map { _ in CurlRequest(url: "https://127.0.0.1:1/x") })
        }
        let results = await task.value
        await client.shutdown()
        #expect(results.count == 5)
        #expect(results.allSatisfy { if case .failure(.cancelled) = $0 { true } else { false } })
        #expect(client.statistics.connectionsOpened == 0)
    }

    @Test func missingFileSurfacesAs404Response() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient()
        let response = try await client.send(CurlRequest(url: server.baseURL + "/nope"))
        await client.shutdown()
        #expect(response.status == 404)
    }

    @Test func wrongCertificateAuthorityFailsVerification() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(caFile: TestCertificates.shared.otherCAFile)
        await #expect {
            _ = try await client.send(CurlRequest(url: server.baseURL + "/hello.txt"))
        } throws: { error in
            guard let error = error as? CurlError, let code = error.code else { return false }
            return code == .peerFailedVerification && code.isTLSConfigurationProblem
        }
        #expect(client.statistics.retries == 0)
        await client.shutdown()
    }

    @Test func clientCertificateIsPresentedWhenTheServerAsksForOne() async throws {
        let server = try Nghttpd(extraArguments: ["--verify-client"])
        defer { server.stop() }
        let certificates = TestCertificates.shared
        let withCertificate = try CurlClient(
            configuration: CurlConfiguration(
                tls: CurlTLSConfiguration(
                    caFile: certificates.caFile, clientCertificateFile: certificates.clientCertificate,
                    clientKeyFile: certificates.clientKey
                )
            )
        )
        let response = try await withCertificate.send(CurlRequest(url: server.baseURL + "/hello.txt"))
        await withCertificate.shutdown()
        #expect(response.status == 200)

        let without = try makeClient()
        await #expect(throws: CurlError.self) {
            _ = try await without.send(CurlRequest(url: server.baseURL + "/hello.txt"))
        }
        await without.shutdown()
    }

    @Test func timeoutFiresAgainstASilentServer() async throws {
        let listener = LocalPort.silentListener()
        defer { close(listener.fd) }
        let client = try makeClient()
        let clock = ContinuousClock()
        let started = clock.now
        await #expect {
            _ = try await client.send(
                CurlRequest(url: "https://127.0.0.1:\(listener.port)/x", timeout: .milliseconds(300))
            )
        } throws: { error in
            (error as? CurlError)?.isTimeout == true
        }
        let elapsed = clock.now - started
        await client.shutdown()
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(5))
    }

    @Test func cancellingTheTaskRemovesTheTransfer() async throws {
        let listener = LocalPort.silentListener()
        defer { close(listener.fd) }
        let client = try makeClient()
        // The outcome says which came first, the cancel or the transfer's own timeout: a transfer left in flight
        // ends as a timeout, one removed on cancel as `.cancelled`. No elapsed-time bound, so a loaded machine
        // cannot fail it; the long timeout only keeps a broken cancel from hanging the suite.
        let task = Task {
            try await client.send(CurlRequest(url: "https://127.0.0.1:\(listener.port)/x", timeout: .seconds(90)))
        }
        // The driver thread admits the request on its own schedule; wait for it (up to the timeout) to be in flight.
        for _ in 0..<4500 where client.statistics.inFlight == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(client.statistics.inFlight == 1)
        task.cancel()
        let result = await task.result
        #expect(throws: CurlError.cancelled) { try result.get() }
        await client.shutdown()
        #expect(client.statistics.inFlight == 0)
    }

    @Test func alreadyCancelledTaskNeverStartsARequest() async throws {
        let client = try makeClient()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(CurlRequest(url: "https://127.0.0.1:1/x"))
        }
        let result = await task.result
        #expect(throws: CurlError.cancelled) { try result.get() }
        await client.shutdown()
        #expect(client.statistics.connectionsOpened == 0)
    }

    @Test func requestsAfterShutdownAreRefused() async throws {
        let client = try makeClient()
        await client.shutdown()
        await #expect(throws: CurlError.shutdown) {
            _ = try await client.send(CurlRequest(url: "https://127.0.0.1:1/x"))
        }
    }

    @Test func shutdownLetsInFlightRequestsFinish() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient()
        let url = server.baseURL + "/hello.txt"
        async let first = client.send(CurlRequest(url: url))
        try await Task.sleep(for: .milliseconds(1))
        await client.shutdown()
        let response = try? await first
        // Either it was accepted before shutdown and completed, or it was refused; never lost.
        #expect(response?.status == 200 || client.statistics.failures == 1)
    }

    @Test func connectionRefusedIsRetriedThenReported() async throws {
        let port = LocalPort.free()
        let client = try makeClient()
        await #expect {
            _ = try await client.send(CurlRequest(url: "https://127.0.0.1:\(port)/x"))
        } throws: { error in
            (error as? CurlError)?.code == .couldNotConnect
        }
        #expect(client.statistics.retries == CurlConfiguration().connectionRetries)
        await client.shutdown()
    }

    @Test func queuedRequestsBeyondMaxInFlightStillComplete() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try CurlClient(
            configuration: CurlConfiguration(
                tls: CurlTLSConfiguration(caFile: TestCertificates.shared.caFile),
                maxInFlight: 8)
        )
        let url = server.baseURL + "/hello.txt"
        let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 { group.addTask { try await client.send(CurlRequest(url: url)).status == 200 } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        await client.shutdown()
        #expect(ok == 100)
    }

    @Test func requestsAreDealtToEveryDriverThread() async throws {
        let server = try Nghttpd(files: ["hello.txt": "hello\n"])
        defer { server.stop() }
        // One connection in all, but each of the two drivers gets at least one of its own: two connections
        // can only mean both drivers carried requests.
        let client = try CurlClient(
            configuration: CurlConfiguration(
                tls: CurlTLSConfiguration(caFile: TestCertificates.shared.caFile), maxHostConnections: 1,
                maxTotalConnections: 1, driverThreads: 2))
        let url = server.baseURL + "/hello.txt"
        let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<400 { group.addTask { try await client.send(CurlRequest(url: url)).status == 200 } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let statistics = client.statistics
        await client.shutdown()
        #expect(ok == 400)
        #expect(statistics.connectionsOpened == 2)
        #expect(statistics.requests == 400 && statistics.responses == 400 && statistics.failures == 0)
    }
}

@Suite struct CurlDriverThreadTests {
    /// Operators (`top -H`, `perf`) and scripts/bench-fanout tell the drivers' CPU from the rest of the server's
    /// by this name. Eight drivers, because a name set through Foundation reached only some of them: those that
    /// ran after their `start()` had returned.
    @Test func everyDriverThreadCarriesItsName() async throws {
        let client = try CurlClient(configuration: CurlConfiguration(driverThreads: 8))
        let named = await SystemThreads.count(named: CurlDriver.threadName, atLeast: 8)
        await client.shutdown()
        #expect(named >= 8, "threads of this process: \(SystemThreads.names())")
    }
}

@Suite struct CurlConfigurationShareTests {
    @Test func eachDriverGetsItsShareAndAtLeastOne() {
        let configuration = CurlConfiguration(maxHostConnections: 3, maxTotalConnections: 4, maxInFlight: 2000)
        let half = configuration.share(of: 2)
        #expect(half.maxHostConnections == 2 && half.maxTotalConnections == 2 && half.maxInFlight == 1000)
        let tiny = CurlConfiguration(maxHostConnections: 1, maxTotalConnections: 1, maxInFlight: 1).share(of: 4)
        #expect(tiny.maxHostConnections == 1 && tiny.maxTotalConnections == 1 && tiny.maxInFlight == 1)
        #expect(configuration.share(of: 1).maxInFlight == 2000)
    }
}
