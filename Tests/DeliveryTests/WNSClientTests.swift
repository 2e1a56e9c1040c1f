import Curl
import Foundation
import HTTP2TestSupport
import HTTPTypes
import PushCore
import Testing

@testable import Delivery

@Suite struct WNSResponseMappingTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func outcome(_ status: Int, headers: HTTPFields = [:]) -> DeliveryOutcome {
        WNSResponseMapping.outcome(status: status, headers: headers, now: now)
    }

    @Test func successCarriesTheMessageId() {
        #expect(outcome(200, headers: [HTTPField.Name("X-WNS-Msg-ID")!: "3A1B"]) == .success(id: "3A1B"))
    }

    @Test func expiredAndUnknownChannelsInvalidateTheInstallation() {
        #expect(outcome(410) == .invalidToken(reason: .wns(.channelExpired), since: nil))
        #expect(outcome(404) == .invalidToken(reason: .wns(.channelNotFound), since: nil))
        #expect(ProviderReason.wns(.channelExpired).description == "ChannelExpired")
    }

    @Test func throttlingAndServerTroubleAreRetriedHonouringRetryAfter() {
        #expect(
            outcome(429, headers: [.retryAfter: "7"])
                == .retryable(reason: .wns(.tooManyRequests), retryAfter: .seconds(7)))
        #expect(outcome(406) == .retryable(reason: .wns(.throttled), retryAfter: nil))
        #expect(outcome(500) == .retryable(reason: .wns(.internalServerError), retryAfter: nil))
        #expect(outcome(503) == .retryable(reason: .wns(.serviceUnavailable), retryAfter: nil))
    }

    @Test func refusedTokensAreRefreshed() {
        #expect(outcome(401) == .expiredProviderToken(reason: .wns(.unauthorized)))
        #expect(outcome(403) == .expiredProviderToken(reason: .wns(.forbidden)))
    }

    @Test func badRequestsArePermanentAndOnlyCredentialOrPayloadProblemsFailThePush() {
        #expect(outcome(400) == .permanent(reason: .wns(.badRequest)))
        #expect(outcome(413) == .permanent(reason: .wns(.payloadTooLarge)))
        #expect(outcome(405) == .permanent(reason: .wns(.unknown(status: 405))))
        #expect(ProviderReason.wns(.payloadTooLarge).failsWholePush)
        #expect(ProviderReason.wns(.unauthorized).failsWholePush)
        #expect(!ProviderReason.wns(.forbidden).failsWholePush)
        #expect(!ProviderReason.wns(.channelExpired).failsWholePush)
        #expect(ProviderReason.wns(.badRequest).providerName == "WNS")
    }

    @Test func aSecondRefusalAfterOneRefreshIsFinal() async {
        // The retry loop refreshes once (RetryPolicy.maxCredentialRefreshes), then gives up with the answer.
        let answers = [401, 401, 200].map { WNSResponseMapping.outcome(status: $0, headers: [:]) }
        let provider = PushProviderDeliverTests.Scripted(["uri": answers])
        #expect(
            await provider.deliver([["uri"]])
                == [DeliveryResult(outcome: .expiredProviderToken(reason: .wns(.unauthorized)), attempts: 2)])
    }
}

@Suite struct WNSRequestTests {
    @Test func theTokenRequestIsAFormEncodedClientCredentialsGrant() {
        let request = WNSAccessTokenProvider.tokenRequest(
            packageSid: "ms-app://s-1-15-2-1", secret: "a+b/c=d é",
            tokenEndpoint: "https://login.live.com/accesstoken.srf")
        #expect(request.method == .post)
        #expect(request.url == "https://login.live.com/accesstoken.srf")
        #expect(request.headers[.contentType] == "application/x-www-form-urlencoded")
        #expect(
            String(decoding: request.body ?? [], as: UTF8.self)
                == "grant_type=client_credentials&client_id=ms-app%3A%2F%2Fs-1-15-2-1"
                + "&client_secret=a%2Bb%2Fc%3Dd%20%C3%A9&scope=notify.windows.com")
    }

    @Test func headersNameTheTypeAndTheTimeToLive() throws {
        let toast = try #require(try PushData(["alert": "x"]).wnsPayload(notificationId: "n"))
        let headers = WNSNotification(channelURI: "https://x/wns/1", payload: toast, timeToLive: 600).headers
        #expect(headers[HTTPField.Name("X-WNS-Type")!] == "wns/toast")
        #expect(headers[.contentType] == "text/xml")
        #expect(headers[HTTPField.Name("X-WNS-TTL")!] == "600")
        let raw = try #require(try PushData(["k": 1]).wnsPayload(notificationId: "n"))
        let rawHeaders = WNSNotification(channelURI: "https://x/wns/1", payload: raw, timeToLive: 0).headers
        #expect(rawHeaders[.contentType] == "application/octet-stream")
        #expect(rawHeaders[HTTPField.Name("X-WNS-Type")!] == "wns/raw")
        // 0 means "never expires" to WNS: a push about to expire asks for the least instead.
        #expect(rawHeaders[HTTPField.Name("X-WNS-TTL")!] == "1")
        #expect(WNSNotification(channelURI: "u", payload: raw).headers[HTTPField.Name("X-WNS-TTL")!] == nil)
    }

    @Test func emptyCredentialsAreAConfigurationError() {
        #expect(throws: DeliverySetupError.self) {
            _ = try WNSClient(configuration: WNSConfiguration(packageSid: "", secret: "s"))
        }
    }
}

/// SPEC §12.7 at send time: a channel URI outside Microsoft's hosts and the app's list is never contacted, nor
/// is the token endpoint asked for the access token that would travel with it.
@Suite struct WNSForbiddenEndpointTests {
    @Test func notificationsToHostsNotAdmittedAreNeverSent() async throws {
        let listener = LocalPort.silentListener()
        defer { close(listener.fd) }
        // The token endpoint is the silent listener too: a request to it would hang, not fail fast.
        let client = try WNSClient(
            configuration: WNSConfiguration(
                tokenEndpoint: "https://127.0.0.1:\(listener.port)/token", packageSid: "ms-app://s-1", secret: "s",
                requestTimeout: .seconds(30), hosts: try WNSHosts(setting: "127.0.0.1:1")))
        let aimed = [
            "https://127.0.0.1:\(listener.port)/x", "https://localhost:\(listener.port)/x",
            "https://db5.notify.windows.com@127.0.0.1:\(listener.port)/", "https://169.254.169.254/latest",
            "https://db5.notify.windows.com:\(listener.port)/",
        ]
        let payload = try #require(try PushData(["alert": "x"]).wnsPayload(notificationId: "n"))
        let outcomes = await client.attempt(all: aimed.map { WNSNotification(channelURI: $0, payload: payload) })
        let statistics = client.httpStatistics
        await client.shutdown()
        #expect(outcomes == aimed.map { _ in .permanent(reason: .forbiddenEndpoint) })
        #expect(statistics.requests == 0)
        #expect(statistics.connectionsOpened == 0)
        #expect(ProviderReason.forbiddenEndpoint.description == "ForbiddenEndpoint")
        #expect(!ProviderReason.forbiddenEndpoint.failsWholePush)
    }
}
