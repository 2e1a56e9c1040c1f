import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore

/// Sends notifications through WNS for one app's package SID: each to its device's channel URI, with an OAuth
/// access token from the client-credentials grant. Channel URIs are on many hosts, so libcurl negotiates
/// HTTP/2 where a host offers it and HTTP/1.1 otherwise.
public final class WNSClient: Sendable {
    public let configuration: WNSConfiguration
    private let http: CurlClient
    private let ownsHTTP: Bool
    private let tokens: OAuthAccessTokenProvider
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - http: a client to share; by default the WNS client makes and owns one.
    ///   - now: the clock for token expiry and Retry-After dates.
    public init(
        configuration: WNSConfiguration,
        http: CurlClient? = nil,
        logger: Logger? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(DeliverySetupError) {
        guard !configuration.packageSid.isEmpty, !configuration.secret.isEmpty else {
            throw .credentials(.invalidClientCredentials("the WNS package SID and secret must not be empty"))
        }
        self.configuration = configuration
        self.now = now
        (self.http, ownsHTTP) = try ProviderHTTPClient.make(
            shared: http, tls: CurlTLSConfiguration(caFile: configuration.caFile),
            hostConnections: configuration.connectionsPerHost, totalConnections: configuration.totalConnections,
            maxInFlight: configuration.maxInFlight, timeout: configuration.requestTimeout, logger: logger)
        tokens = WNSAccessTokenProvider.make(configuration, http: self.http, now: now)
    }

    /// One attempt, classified. A 401/403 has already dropped the cached access token, so an immediate second
    /// attempt fetches a new one.
    public func attempt(_ notification: WNSNotification) async -> DeliveryOutcome {
        let accessToken: String
        do {
            accessToken = try await tokens.accessToken()
        } catch {
            let reason = ProviderReason.wns(.accessToken(error))
            return error.isTransient ? .retryable(reason: reason, retryAfter: nil) : .permanent(reason: reason)
        }
        var headers = notification.headers
        headers[.authorization] = "Bearer " + accessToken
        let request = CurlRequest(
            method: .post, url: notification.channelURI, headers: headers, body: notification.payload.body,
            timeout: configuration.requestTimeout)
        let response: CurlResponse
        do {
            response = try await http.send(request)
        } catch {
            return .transportFailure(error)
        }
        let outcome = WNSResponseMapping.outcome(status: response.status, headers: response.headers, now: now())
        if case .expiredProviderToken = outcome { tokens.rejected(accessToken) }
        return outcome
    }

    /// Attempts until the outcome is final under `policy`: backs off on 406/429/5xx/connection trouble (at least
    /// Retry-After), fetches a new access token once after a 401/403.
    /// - Parameters:
    ///   - random: uniform in [0, 1), for backoff jitter.
    ///   - sleep: waits between attempts.
    public func send(
        _ notification: WNSNotification,
        policy: RetryPolicy = RetryPolicy(),
        random: @Sendable () -> Double = { Double.random(in: 0..<1) },
        sleep: DeliverySleep = { try await Task.sleep(for: $0) }
    ) async -> DeliveryResult {
        await RetryLoop.run(
            policy: policy, random: random, sleep: sleep, attempt: { await attempt(notification) })
    }

    /// Closes the connections if this client made them.
    public func shutdown() async {
        if ownsHTTP { await http.shutdown() }
    }

    public var httpStatistics: CurlStatistics { http.statistics }
}
