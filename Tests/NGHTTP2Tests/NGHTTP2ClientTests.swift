import HTTP2TestSupport
import HTTPTypes
import Testing

@testable import NGHTTP2

@Suite(
    "NGHTTP2Client against nghttpd: requests and responses", .enabled(if: Nghttpd.isInstalled, "needs nghttp2-server"),
    .timeLimit(.minutes(2)))
struct NGHTTP2ClientTests {
    @Test func getReturnsStatusBodyAndResponseHeaders() async throws {
        let server = try Nghttpd(files: ["hello.txt": "hello\n"])
        defer { server.stop() }
        let client = try makeClient()
        let response = try await client.send(NGHTTP2Request(url: server.baseURL + "/hello.txt"))
        let missing = try await client.send(NGHTTP2Request(url: server.baseURL + "/missing?x=1"))
        await client.shutdown()
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello\n")
        #expect(response.headers[HTTPField.Name("content-length")!] == "6")
        #expect(response.headers[HTTPField.Name("server")!]?.hasPrefix("nghttpd") == true)
        #expect(missing.status == 404)
    }

    @Test func postBodyIsSentWholeAndEchoed() async throws {
        let server = try Nghttpd(files: ["echo": ""])
        defer { server.stop() }
        let client = try makeClient()
        // Larger than a DATA frame (16 KiB), so it goes out in several.
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 40_000)
        let response = try await client.send(
            NGHTTP2Request(
                method: .post, url: server.baseURL + "/echo",
                headers: [HTTPField.Name("content-type")!: "application/json"], body: payload))
        let empty = try await client.send(NGHTTP2Request(method: .post, url: server.baseURL + "/echo", body: []))
        let get = try await client.send(NGHTTP2Request(url: server.baseURL + "/echo"))
        await client.shutdown()
        #expect(response.status == 200)
        #expect(response.body == payload)
        #expect(empty.status == 200 && empty.body.isEmpty)
        #expect(get.status == 200 && get.body.isEmpty)
    }

    /// A fan-out's shape: one submission of thousands, spread over both connections, every result in the order
    /// of its request, each request with its own line and the shared block's.
    @Test func fiveThousandRequestsOverTwoConnectionsAnswerInOrder() async throws {
        let server = try Nghttpd(files: ["a.txt": "a", "b.txt": "bb"])
        defer { server.stop() }
        let client = try makeClient(maxHostConnections: 2)
        let shared = NGHTTP2HeaderBlock([.shared: "1"])
        let paths = (0..<5000).map { ["/a.txt", "/missing", "/b.txt"][$0 % 3] }
        let results = await client.send(
            all: paths.enumerated().map { index, path in
                NGHTTP2Request(url: server.baseURL + path, headers: [.own: "\(index)"], sharedHeaders: shared)
            })
        let statistics = client.statistics
        await client.shutdown()
        #expect(results.count == 5000)
        for (result, path) in zip(results, paths) {
            let response = try result.get()
            switch path {
            case "/a.txt": #expect(response.status == 200 && response.body == Array("a".utf8))
            case "/b.txt": #expect(response.status == 200 && response.body == Array("bb".utf8))
            default: #expect(response.status == 404)
            }
        }
        #expect(statistics.connectionsOpened == 2)
        #expect(statistics.requests == 5000 && statistics.responses == 5000 && statistics.failures == 0)
        #expect(statistics.inFlight == 0 && statistics.queued == 0)
    }

    @Test func concurrentSendsAreAllAnswered() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient()
        let url = server.baseURL + "/hello.txt"
        let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<300 { group.addTask { try await client.send(NGHTTP2Request(url: url)).status == 200 } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let statistics = client.statistics
        await client.shutdown()
        #expect(ok == 300)
        #expect(statistics.connectionsOpened >= 1 && statistics.connectionsOpened <= 2)
    }

    @Test func requestsBeyondMaxInFlightWaitTheirTurn() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        let client = try makeClient(maxInFlight: 8)
        let results = await client.send(all: (0..<100).map { _ in NGHTTP2Request(url: server.baseURL + "/hello.txt") })
        let statistics = client.statistics
        await client.shutdown()
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        #expect(statistics.peakStreamsPerConnection <= 8)
    }

    @Test func requestsAreDealtToEveryLoop() async throws {
        let server = try Nghttpd()
        defer { server.stop() }
        // One connection in all, but each of the two loops gets one of its own: two connections can only mean
        // both loops carried requests.
        let client = try makeClient(maxHostConnections: 1, loopThreads: 2)
        let url = server.baseURL + "/hello.txt"
        let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<400 { group.addTask { try await client.send(NGHTTP2Request(url: url)).status == 200 } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let statistics = client.statistics
        await client.shutdown()
        #expect(ok == 400)
        #expect(statistics.connectionsOpened == 2)
    }

    @Test func aURLTheClientCannotUseFailsAsAConfigurationProblem() async throws {
        let client = try makeClient()
        let results = await client.send(all: [
            NGHTTP2Request(url: "http://127.0.0.1:1/plain"), NGHTTP2Request(url: "https:///no-host"),
            NGHTTP2Request(url: "https://127.0.0.1:99999/bad-port"),
        ])
        let statistics = client.statistics
        await client.shutdown()
        for result in results {
            guard case .invalidRequest = result.error else {
                Issue.record("expected invalidRequest, got \(result)")
                continue
            }
            #expect(result.error?.isConfigurationProblem == true)
        }
        #expect(statistics.connectionsOpened == 0 && statistics.failures == 3)
    }
}
