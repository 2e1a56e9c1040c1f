import Foundation
import HTTP2TestSupport
import HTTPTypes
import Testing

@testable import NGHTTP2

/// Against PushLedger's own simulator (`PUSHLEDGER_BIN`): its APNs look-alike records what each device token
/// received, and it injects latency and GOAWAYs.
@Suite(
    "NGHTTP2Client against the simulator", .enabled(if: PushLedgerSimulator.binaryPath != nil, "set PUSHLEDGER_BIN"),
    .timeLimit(.minutes(3)))
struct NGHTTP2SimulatorTests {
    private let payload = Array(#"{"aps":{"alert":"hello"}}"#.utf8)
    private let shared = NGHTTP2HeaderBlock([.apnsTopic: "com.example.nghttp2", .apnsPushType: "alert"])

    @Test func headerLinesTravelBothWays() async throws {
        let simulator = try PushLedgerSimulator()
        defer { simulator.stop() }
        let client = try makeClient(caFile: simulator.caFile)
        let id = UUID().uuidString
        let response = try await client.send(
            NGHTTP2Request(
                method: .post, url: simulator.deviceURL(7), headers: [.apnsID: id, .apnsExpiration: "0"],
                body: payload, sharedHeaders: shared))
        await client.shutdown()
        #expect(response.status == 200)
        #expect(response.headers[.apnsID] == id, "the simulator echoes apns-id")
        let received = try simulator.recordedHeaders(token: PushLedgerSimulator.token(7))
        #expect(received["apns-id"] == id)
        #expect(received["apns-expiration"] == "0")
        #expect(received["apns-topic"] == "com.example.nghttp2")
        #expect(received["apns-push-type"] == "alert")
        #expect(received["user-agent"] == "PushLedger")
        #expect(received["content-length"] == "\(payload.count)")
    }

    /// A GOAWAY every 200 streams: the streams above each GOAWAY's last id are refused and run again on the
    /// successor, so every request is answered, and the simulator saw each exactly once.
    @Test func everyRequestIsAnsweredExactlyOnceAcrossGoaways() async throws {
        let simulator = try PushLedgerSimulator(extraArguments: ["--goaway-after", "200"])
        defer { simulator.stop() }
        let client = try makeClient(caFile: simulator.caFile, maxHostConnections: 2)
        let count = 5000
        let results = await client.send(
            all: (0..<count).map {
                NGHTTP2Request(method: .post, url: simulator.deviceURL($0), body: payload, sharedHeaders: shared)
            })
        let statistics = client.statistics
        await client.shutdown()
        #expect(results.count == count)
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        let perToken = try simulator.requestsPerToken()
        #expect(perToken.count == count)
        #expect(perToken.values.allSatisfy { $0 == 1 }, "no request processed twice")
        #expect(statistics.goaways >= 10)
        #expect(statistics.retries > 0, "refused streams re-run")
        #expect(statistics.responses == count && statistics.failures == 0)
    }

    /// The slow request's stream is reset at its deadline; the connection stays, and the other requests on it
    /// are answered.
    @Test func aRequestPastItsDeadlineTimesOutAndTheOthersOnItsConnectionDoNot() async throws {
        // Latency far beyond the deadline, so that a busy machine's delays cannot blur the two.
        let simulator = try PushLedgerSimulator(extraArguments: ["--latency-ms", "4000"])
        defer { simulator.stop() }
        let client = try makeClient(caFile: simulator.caFile, maxHostConnections: 1)
        // The control endpoints answer without the simulated latency.
        #expect(try await client.send(NGHTTP2Request(url: simulator.baseURL + "/_sim/info")).status == 200)
        let clock = ContinuousClock()
        let started = clock.now
        async let slow = client.send(
            all: [
                NGHTTP2Request(
                    method: .post, url: simulator.deviceURL(1), body: payload, timeout: .milliseconds(300),
                    sharedHeaders: shared)
            ])
        async let patient = client.send(
            NGHTTP2Request(
                method: .post, url: simulator.deviceURL(2), body: payload, timeout: .seconds(30), sharedHeaders: shared)
        )
        async let quick = client.send(NGHTTP2Request(url: simulator.baseURL + "/_sim/config"))
        let slowResult = await slow[0]
        let slowElapsed = clock.now - started
        #expect(slowResult.error == .timeout(responseStarted: false))
        // A timeout, where the simulator would have answered 200 after 4 s: the deadline ended it. Only the lower
        // bound is timed, since the awaiting task may be resumed late while the rest of the suite runs.
        #expect(slowElapsed >= .milliseconds(250), "\(slowElapsed)")
        #expect(try await quick.status == 200)
        #expect(try await patient.status == 200)
        let statistics = client.statistics
        await client.shutdown()
        #expect(statistics.connectionsOpened == 1)
    }
}
