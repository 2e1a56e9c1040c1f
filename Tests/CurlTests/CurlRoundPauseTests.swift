import Foundation
import HTTP2TestSupport
import Testing

@testable import Curl

/// A driver pauses before a round only while many transfers are in flight (`CurlRoundPause`): under load
/// its rounds gather answers, and a lone request never waits.
@Suite("CurlRoundPause", .enabled(if: Nghttpd.isInstalled, "needs nghttp2-server"))
struct CurlRoundPauseTests {
    @Test func pausesOnlyFromTheThreshold() {
        let standard = CurlRoundPause.standard
        #expect(standard.pause(inFlight: 0) == nil)
        #expect(standard.pause(inFlight: standard.threshold - 1) == nil)
        #expect(standard.pause(inFlight: standard.threshold) == .microseconds(500))
        #expect(CurlRoundPause.none.pause(inFlight: 1_000_000) == nil)
        #expect(CurlRoundPause(pause: .zero, threshold: 1).pause(inFlight: 10) == nil)
    }

    private static func client(_ pause: CurlRoundPause) throws -> CurlClient {
        try CurlClient(
            configuration: CurlConfiguration(
                tls: CurlTLSConfiguration(caFile: TestCertificates.shared.caFile), driverThreads: 1,
                roundPause: pause))
    }

    @Test func loneRequestsNeverPause() async throws {
        let server = try Nghttpd(files: ["hello.txt": "hello\n"])
        defer { server.stop() }
        let client = try Self.client(.standard)
        for _ in 0..<5 {
            let response = try await client.send(CurlRequest(url: server.baseURL + "/hello.txt"))
            #expect(response.status == 200)
        }
        await client.shutdown()
        let statistics = client.statistics
        #expect(statistics.rounds > 0)
        #expect(statistics.pausedRounds == 0)
    }

    /// 300 requests at once: the driver has more than the threshold in flight while their connection is set
    /// up and their answers arrive, so it pauses; every request is still answered.
    @Test func manyRequestsInFlightPauseAndAllAreAnswered() async throws {
        let server = try Nghttpd(files: ["hello.txt": "hello\n"])
        defer { server.stop() }
        let client = try Self.client(.standard)
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<300 {
                group.addTask { (try? await client.send(CurlRequest(url: server.baseURL + "/hello.txt")))?.status ?? 0 }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        await client.shutdown()
        #expect(statuses.count == 300 && statuses.allSatisfy { $0 == 200 })
        #expect(client.statistics.pausedRounds > 0)
    }

    /// With the threshold at one transfer, a request waits at least one pause: the round that finds its
    /// answer comes after a pause.
    @Test func aPausedRoundWaitsThePause() async throws {
        let server = try Nghttpd(files: ["hello.txt": "hello\n"])
        defer { server.stop() }
        let client = try Self.client(CurlRoundPause(pause: .milliseconds(200), threshold: 1))
        let started = ContinuousClock.now
        let response = try await client.send(CurlRequest(url: server.baseURL + "/hello.txt"))
        let elapsed = ContinuousClock.now - started
        await client.shutdown()
        #expect(response.status == 200)
        #expect(client.statistics.pausedRounds > 0)
        #expect(elapsed >= .milliseconds(200))
    }
}
