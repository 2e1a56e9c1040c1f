import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore

/// Sends notifications through WNS for one app's package SID: each to its device's channel URI, with an OAuth
/// access token from the client-credentials grant. Channel URIs are on many hosts, so libcurl negotiates
/// HTTP/2 where a host offers it and HTTP/1.1 otherwise.
public final class WNSClient: PushProvider {
    public let name = "wns"
    public let configuration: WNSConfiguration
    private let http: CurlClient
    private let ownsHTTP: Bool
    private let tokens: OAuthAccessTokenProvider
    private let clock: ServiceClock

    /// - Parameters:
    ///   - http: a client to share; by default the WNS client makes and owns one.
    ///   - now: the clock for token expiry and Retry-After dates.
    public init(
        configuration: WNSConfiguration,
        http: CurlClient? = nil,
        logger: Logger? = nil,
        clock: ServiceClock = .system
    ) throws(DeliverySetupError) {
        guard !configuration.packageSid.isEmpty, !configuration.secret.isEmpty else {
            throw .credentials(.invalidClientCredentials("the WNS package SID and secret must not be empty"))
        }
        self.configuration = configuration
        self.clock = clock
        (self.http, ownsHTTP) = try ProviderHTTPClient.make(
            shared: http, tls: CurlTLSConfiguration(caFile: configuration.caFile),
            hostConnections: configuration.connectionsPerHost, totalConnections: configuration.totalConnections,
            maxInFlight: configuration.maxInFlight, timeout: configuration.requestTimeout, logger: logger)
        tokens = WNSAccessTokenProvider.make(configuration, http: self.http, clock: clock)
    }

    /// One attempt of many notifications at once (a chunk of a fan-out batch): one access token, one header
    /// block per distinct set of WNS headers and one submission to libcurl. A 401/403 has already dropped the
    /// cached access token, so an immediate second attempt fetches a new one. Outcomes in the order given.
    /// A channel URI whose host and port, as libcurl reads them, are not admitted by `configuration.hosts` is
    /// not sent to at all, so the access token never leaves for a host a client chose.
    public func attempt(all notifications: [WNSNotification]) async -> [DeliveryOutcome] {
        var outcomes = [DeliveryOutcome?](repeating: nil, count: notifications.count)
        var admitted: [Int] = []
        for (i, notification) in notifications.enumerated() {
            if isAdmitted(notification.channelURI) {
                admitted.append(i)
            } else {
                outcomes[i] = .permanent(reason: .forbiddenEndpoint)
            }
        }
        if !admitted.isEmpty {
            let sent = await attemptAdmitted(admitted.map { notifications[$0] })
            for (i, outcome) in zip(admitted, sent) { outcomes[i] = outcome }
        }
        return outcomes.map { $0! }
    }

    /// SPEC §12.7: checked by our strict reading and by libcurl's own, which must agree on host and port.
    func isAdmitted(_ uri: String) -> Bool {
        guard let strict = HTTPSURL(uri), configuration.hosts.admits(host: strict.host, port: strict.port),
            let parsed = CurlURL(uri)
        else { return false }
        return parsed.scheme == "https" && parsed.host.lowercased() == strict.host && parsed.port == strict.port
    }

    private func attemptAdmitted(_ notifications: [WNSNotification]) async -> [DeliveryOutcome] {
        let accessToken: String
        do {
            accessToken = try await tokens.accessToken()
        } catch {
            return notifications.map { _ in Self.accessTokenFailure(error) }
        }
        var blocks: [HTTPFields: CurlHeaderBlock] = [:]
        let requests = notifications.map { notification in
            let fields = notification.headers
            let block = blocks[fields] ?? CurlHeaderBlock(Self.withAuthorization(fields, accessToken))
            blocks[fields] = block
            return CurlRequest(
                method: .post, url: notification.channelURI, body: notification.payload.body,
                timeout: configuration.requestTimeout, sharedHeaders: block)
        }
        return await http.send(all: requests).map { outcome(of: $0, accessToken: accessToken) }
    }

    private static func withAuthorization(_ fields: HTTPFields, _ accessToken: String) -> HTTPFields {
        var headers = fields
        headers[.authorization] = "Bearer " + accessToken
        return headers
    }

    private static func accessTokenFailure(_ error: AccessTokenError) -> DeliveryOutcome {
        let reason = ProviderReason.wns(.accessToken(error))
        return error.isTransient ? .retryable(reason: reason, retryAfter: nil) : .permanent(reason: reason)
    }

    /// Classifies one answer; a 401/403 drops the access token it was sent with.
    private func outcome(of result: Result<CurlResponse, CurlError>, accessToken: String) -> DeliveryOutcome {
        let response: CurlResponse
        switch result {
        case .success(let answered): response = answered
        case .failure(let error): return .transportFailure(error)
        }
        let outcome = WNSResponseMapping.outcome(status: response.status, headers: response.headers, now: clock.now())
        if case .expiredProviderToken = outcome { tokens.rejected(accessToken) }
        return outcome
    }

    /// Closes the connections if this client made them.
    public func shutdown() async {
        if ownsHTTP { await http.shutdown() }
    }

    public var httpStatistics: TransportStatistics { TransportStatistics(http.statistics) }
}
