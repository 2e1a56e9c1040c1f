import HTTP2TestSupport
import HTTPTypes
import Testing

@testable import NGHTTP2

#if canImport(Glibc)
    import Glibc
#endif

@Suite(
    "NGHTTP2Client: connections lost, refused, pinged, resolved",
    .enabled(if: Nghttpd.isInstalled, "needs nghttp2-server"),
    .timeLimit(.minutes(2)))
struct NGHTTP2ConnectionTests {
    /// Never more streams on a connection than the server allows, and the rest still answered.
    @Test func theServersStreamLimitIsKeptAndEveryRequestAnswered() async throws {
        let server = try Nghttpd(extraArguments: ["--echo-upload", "--max-concurrent-streams=5"])
        defer { server.stop() }
        let client = try makeClient(maxHostConnections: 1)
        let results = await client.send(all: (0..<300).map { _ in NGHTTP2Request(url: server.baseURL + "/hello.txt") })
        let statistics = client.statistics
        await client.shutdown()
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        #expect(statistics.peakStreamsPerConnection == 5)
        #expect(statistics.retries == 0, "a stream over the limit would have been refused and re-run")
    }

    @Test func ourOwnStreamCapIsKeptToo() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(maxHostConnections: 1, maxConcurrentStreams: 3)
        let results = await client.send(all: (0..<100).map { _ in NGHTTP2Request(url: server.baseURL + "/hello.txt") })
        let statistics = client.statistics
        await client.shutdown()
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        #expect(statistics.peakStreamsPerConnection == 3)
    }

    /// Requests written to a server that then dies had no answer: they run again once it is back.
    @Test func requestsInFlightWhenTheServerDiesRunAgainOnceItIsBack() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(maxHostConnections: 1, connectionRetries: 20)
        let url = server.baseURL + "/hello.txt"
        #expect(try await client.send(NGHTTP2Request(url: url)).status == 200)
        server.suspend()
        let task = Task { await client.send(all: (0..<20).map { _ in NGHTTP2Request(url: url) }) }
        #expect(await eventually { client.statistics.inFlight == 20 })
        server.kill()
        let restarted = try Nghttpd(port: server.port)
        defer { restarted.stop() }
        let results = await task.value
        let statistics = client.statistics
        await client.shutdown()
        #expect(results.count == 20 && results.allSatisfy { (try? $0.get().status) == 200 })
        #expect(statistics.retries >= 20)
        #expect(statistics.connectionsOpened == 2)
    }

    @Test func requestsInFlightWhenTheServerDiesFailToConnectIfItStaysDown() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(maxHostConnections: 1, connectionRetries: 2)
        let url = server.baseURL + "/hello.txt"
        #expect(try await client.send(NGHTTP2Request(url: url)).status == 200)
        server.suspend()
        let task = Task { await client.send(all: (0..<5).map { _ in NGHTTP2Request(url: url, timeout: .seconds(60)) }) }
        #expect(await eventually { client.statistics.inFlight == 5 })
        server.kill()
        let results = await task.value
        let statistics = client.statistics
        await client.shutdown()
        #expect(results.count == 5)
        for result in results {
            guard case .connect(let reason) = result.error else {
                Issue.record("expected a connect failure, got \(result)")
                continue
            }
            #expect(reason.contains("refused"))
        }
        #expect(statistics.failures == 5 && statistics.inFlight == 0 && statistics.queued == 0)
    }

    @Test func aRefusedConnectionIsRetriedThenReported() async throws {
        let port = LocalPort.free()
        let client = try makeClient()
        let result = await client.send(all: [NGHTTP2Request(url: "https://127.0.0.1:\(port)/x")])[0]
        let statistics = client.statistics
        await client.shutdown()
        guard case .connect = result.error else {
            Issue.record("expected a connect failure, got \(result)")
            return
        }
        #expect(result.error?.isConfigurationProblem == false)
        #expect(statistics.retries == NGHTTP2Configuration().connectionRetries)
    }

    /// A server that stops answering (frozen) is found out by the PING sent on its idle connection, which is then
    /// dropped: the next request opens a new connection instead of waiting on the dead one. (A request in flight
    /// on a lost connection running again is `requestsInFlightWhenTheServerDiesRunAgainOnceItIsBack`.)
    @Test func anUnansweredPingEndsTheConnection() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(
            maxHostConnections: 1, pingInterval: .milliseconds(300), pingTimeout: .milliseconds(300))
        let url = server.baseURL + "/hello.txt"
        #expect(try await client.send(NGHTTP2Request(url: url)).status == 200)
        server.suspend()
        #expect(await eventually { client.statistics.pingTimeouts >= 1 })
        server.resume()
        #expect(try await client.send(NGHTTP2Request(url: url)).status == 200)
        let statistics = client.statistics
        await client.shutdown()
        #expect(statistics.connectionsOpened == 2)
    }

    /// "localhost" is resolved on the resolver thread for each new connection, and every address it gives is
    /// tried (nghttpd listens on 127.0.0.1 only, so ::1, if listed first, is refused).
    @Test func aHostNameIsResolvedAgainForEveryConnection() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(maxHostConnections: 1)
        let url = "https://localhost:\(server.port)/hello.txt"
        #expect(try await client.send(NGHTTP2Request(url: url)).status == 200)
        let first = client.statistics
        server.stop()
        let restarted = try Nghttpd(port: server.port)
        defer { restarted.stop() }
        #expect(try await client.send(NGHTTP2Request(url: url)).status == 200)
        let second = client.statistics
        await client.shutdown()
        #expect(first.resolutions == 1 && first.connectionsOpened == 1)
        #expect(second.resolutions == 2 && second.connectionsOpened == 2)
    }
}
