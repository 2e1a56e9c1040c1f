import Curl
import Foundation
import HTTP2TestSupport
import NGHTTP2
import PushCore
import Testing

@testable import Delivery

/// The clients over real HTTP/2 + TLS against nghttpd serving canned provider answers as static files, on
/// every transport library.
@Suite("Provider clients against nghttpd", .enabled(if: Nghttpd.isInstalled, "needs nghttp2-server"))
struct ProviderClientIntegrationTests {
    static let deviceToken = String(repeating: "ab", count: 32)

    static func apnsClient(_ server: Nghttpd, _ transport: TransportLibrary) throws -> APNsClient {
        try APNsClient(
            configuration: APNsConfiguration(
                endpoint: server.baseURL,
                authentication: .token(keyFile: TestKeys.apnsKeyFile, keyId: "KEY1234567", teamId: "TEAM123456"),
                topic: "com.example.app", caFile: TestCertificates.shared.caFile, transport: transport
            )
        )
    }

    /// The threads that each open a connection of their own: libcurl's drivers, nghttp2's loops.
    static func threads(of transport: TransportLibrary) -> Int {
        switch transport {
        case .nghttp2: NGHTTP2Configuration.defaultLoopThreads
        case .libcurl: CurlConfiguration.defaultDriverThreads
        }
    }

    @Test(arguments: TransportLibrary.allCases)
    func apnsClientDeliversWithATokenOverOneConnectionPerDriver(_ transport: TransportLibrary) async throws {
        let server = try Nghttpd(files: ["3/device/\(Self.deviceToken)": ""], extraArguments: [])
        defer { server.stop() }
        let client = try Self.apnsClient(server, transport)
        let ids = (0..<50).map { _ in UUID() }
        let outcomes = await withTaskGroup(of: DeliveryOutcome.self) { group in
            for id in ids {
                group.addTask {
                    await client.send(
                        APNsNotification(deviceToken: Self.deviceToken, payload: Array("{}".utf8), apnsId: id)
                    ).outcome
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let missing = await client.send(APNsNotification(deviceToken: "00", payload: Array("{}".utf8)))
        let statistics = client.httpStatistics
        await client.shutdown()
        #expect(Set(outcomes) == Set(ids.map { DeliveryOutcome.success(id: $0.uuidString) }))
        #expect(missing == DeliveryResult(outcome: .permanent(reason: .httpStatus(404)), attempts: 1))
        // Multiplexed: each driver or loop thread carries its share of the 50 sends on one connection.
        #expect(statistics.connectionsOpened == Self.threads(of: transport))
    }

    /// The fan-out's path: first attempts of a chunk in one submission, each outcome in its notification's
    /// place and carrying its own apns-id, a missing device's 404 among them.
    @Test(arguments: TransportLibrary.allCases)
    func apnsAttemptAllAnswersEachNotificationInPlace(_ transport: TransportLibrary) async throws {
        let server = try Nghttpd(files: ["3/device/\(Self.deviceToken)": ""], extraArguments: [])
        defer { server.stop() }
        let client = try Self.apnsClient(server, transport)
        let notifications = (0..<120).map { index in
            APNsNotification(
                deviceToken: index % 4 == 3 ? "00" : Self.deviceToken, payload: Array("{}".utf8),
                collapseId: index % 2 == 0 ? "even" : nil, apnsId: UUID())
        }
        let outcomes = await client.attempt(all: notifications)
        let statistics = client.httpStatistics
        await client.shutdown()
        #expect(
            outcomes
                == notifications.map {
                    $0.deviceToken == "00"
                        ? .permanent(reason: .httpStatus(404)) : .success(id: $0.apnsId.uuidString)
                })
        #expect(statistics.requests == 120)
    }

    @Test(arguments: TransportLibrary.allCases)
    func fcmClientExchangesOneAccessTokenForManyConcurrentSends(_ transport: TransportLibrary) async throws {
        let server = try Nghttpd(
            files: [
                "token": #"{"access_token":"ya29.test","expires_in":3600,"token_type":"Bearer"}"#,
                "v1/projects/demo-project/messages:send": #"{"name":"projects/demo-project/messages/1"}"#,
            ],
            extraArguments: []
        )
        defer { server.stop() }
        let client = try FCMClient(
            configuration: FCMConfiguration(
                endpoint: server.baseURL, tokenEndpoint: server.baseURL + "/token",
                serviceAccountFile: TestKeys.serviceAccountFile(tokenURI: "https://unused.test/token"),
                caFile: TestCertificates.shared.caFile, transport: transport
            )
        )
        let successes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<40 {
                group.addTask {
                    await client.send(FCMMessage(message: ["token": .string("t\(index)"), "data": ["k": "v"]])).outcome
                        == .success(id: "projects/demo-project/messages/1")
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let statistics = client.httpStatistics
        await client.shutdown()
        #expect(successes == 40)
        // 40 sends and a single token exchange: the others waited for it instead of fetching their own.
        #expect(statistics.requests == 41)
    }

    @Test(arguments: TransportLibrary.allCases)
    func fcmTokenEndpointRefusalIsPermanent(_ transport: TransportLibrary) async throws {
        let server = try Nghttpd(files: [:], extraArguments: [])
        defer { server.stop() }
        let client = try FCMClient(
            configuration: FCMConfiguration(
                endpoint: server.baseURL, tokenEndpoint: server.baseURL + "/missing-token",
                serviceAccountFile: TestKeys.serviceAccountFile(tokenURI: "https://unused.test/token"),
                caFile: TestCertificates.shared.caFile, transport: transport
            )
        )
        let result = await client.send(FCMMessage(message: ["token": "t"]))
        await client.shutdown()
        guard case .permanent(.accessToken(.refused(let status, _, _))) = result.outcome else {
            Issue.record("unexpected \(result)")
            return
        }
        #expect(status == 404)
        #expect(result.attempts == 1)
    }
}
