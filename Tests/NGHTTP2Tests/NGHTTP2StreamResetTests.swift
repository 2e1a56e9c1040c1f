import HTTP2TestSupport
import HTTPTypes
import Testing

@testable import NGHTTP2

/// RST_STREAM and a connection dropped mid-response, from a server that does them on cue.
@Suite("NGHTTP2Client: stream resets", .timeLimit(.minutes(2)))
struct NGHTTP2StreamResetTests {
    @Test func aRefusedStreamRunsAgain() async throws {
        let server = try ScriptedHTTP2Server([.refuse, .answer])
        defer { server.stop() }
        let client = try makeClient()
        let response = try await client.send(NGHTTP2Request(url: server.baseURL + "/x"))
        let statistics = client.statistics
        await client.shutdown()
        #expect(response.status == 200)
        #expect(statistics.retries == 1 && statistics.connectionsOpened == 1)
    }

    @Test func anyOtherResetFailsTheRequestWithItsCode() async throws {
        let server = try ScriptedHTTP2Server([.reset, .startThenReset])
        defer { server.stop() }
        let client = try makeClient()
        let before = await client.send(all: [NGHTTP2Request(url: server.baseURL + "/x")])[0]
        let after = await client.send(all: [NGHTTP2Request(url: server.baseURL + "/y")])[0]
        let statistics = client.statistics
        await client.shutdown()
        #expect(before.error == .reset("INTERNAL_ERROR", responseStarted: false))
        #expect(after.error == .reset("INTERNAL_ERROR", responseStarted: true))
        #expect(before.error?.description == "nghttp2: stream reset (INTERNAL_ERROR)")
        #expect(statistics.retries == 0, "only REFUSED_STREAM says the request was not processed")
    }

    /// A response that began may have been acted on: the request fails rather than running again.
    @Test func aConnectionLostAfterTheResponseBeganFailsTheRequest() async throws {
        let server = try ScriptedHTTP2Server([.startThenClose])
        defer { server.stop() }
        let client = try makeClient()
        let result = await client.send(all: [NGHTTP2Request(url: server.baseURL + "/x")])[0]
        let statistics = client.statistics
        await client.shutdown()
        guard case .reset(let reason, responseStarted: true) = result.error else {
            Issue.record("expected a reset after the response began, got \(result)")
            return
        }
        #expect(reason.hasPrefix("connection lost"))
        #expect(statistics.retries == 0)
    }
}
