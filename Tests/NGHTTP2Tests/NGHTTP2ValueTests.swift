import HTTPTypes
import Testing

@testable import NGHTTP2

@Suite struct NGHTTP2ValueTests {
    @Test func eachLoopGetsItsShareAndAtLeastOne() {
        let configuration = NGHTTP2Configuration(maxHostConnections: 3, maxInFlight: 2000)
        let half = configuration.share(of: 2)
        #expect(half.maxHostConnections == 2 && half.maxInFlight == 1000)
        let tiny = NGHTTP2Configuration(maxHostConnections: 1, maxInFlight: 1).share(of: 4)
        #expect(tiny.maxHostConnections == 1 && tiny.maxInFlight == 1)
        #expect(configuration.share(of: 1).maxInFlight == 2000)
    }

    @Test func errorsReadShortlyAndSayWhetherToTryAgain() {
        #expect(NGHTTP2Error.timeout(responseStarted: false).description == "nghttp2: timeout")
        #expect(
            NGHTTP2Error.reset("INTERNAL_ERROR", responseStarted: false).description
                == "nghttp2: stream reset (INTERNAL_ERROR)")
        #expect(
            NGHTTP2Error.reset("connection lost: closed by the server", responseStarted: true).description
                == "nghttp2: connection lost: closed by the server after the response began")
        #expect(NGHTTP2Error.tls("x").isConfigurationProblem && NGHTTP2Error.invalidRequest("x").isConfigurationProblem)
        #expect(
            !NGHTTP2Error.connect("x").isConfigurationProblem
                && !NGHTTP2Error.timeout(responseStarted: true).isConfigurationProblem)
        #expect(NGHTTP2Error.timeout(responseStarted: true).responseStarted)
        #expect(!NGHTTP2Error.connect("x").responseStarted && !NGHTTP2Error.cancelled.responseStarted)
    }

    @Test func aHeaderBlockKeepsTheLinesHTTP2Allows() {
        let block = NGHTTP2HeaderBlock([
            HTTPField.Name("X-Shared")!: "1", .connection: "close", HTTPField.Name("Host")!: "example.com",
            .transferEncoding: "chunked", .authorization: "bearer x",
        ])
        #expect(block.count == 2)
    }

    @Test func durationsBecomeNanosecondsWithoutTrapping() {
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
    }

    @Test func responseHeaderLinesAreParsedWhenRead() {
        let response = NGHTTP2Response(
            status: 200, headerLines: Array("apns-id: abc\nx-empty:\n  bad line\n".utf8), body: [])
        #expect(response.headers[HTTPField.Name("apns-id")!] == "abc")
        #expect(response.headers[HTTPField.Name("x-empty")!] == "")
        #expect(response.headers.count == 2)
    }
}
