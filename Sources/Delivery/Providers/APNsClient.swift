import Curl
import Foundation
import HTTPTypes
import Logging

/// Sends notifications to APNs over HTTP/2 for one credential (token or certificate) and topic.
public final class APNsClient: Sendable {
    public let configuration: APNsConfiguration
    private let http: CurlClient
    private let ownsHTTP: Bool
    private let tokens: APNsTokenProvider?
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - http: a client to share (token authentication only: certificates are per TLS connection); by
    ///     default the APNs client makes and owns one.
    ///   - now: the clock for provider tokens and Retry-After dates.
    public init(
        configuration: APNsConfiguration,
        http: CurlClient? = nil,
        logger: Logger? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(DeliverySetupError) {
        self.configuration = configuration
        self.now = now
        var tls = CurlTLSConfiguration(caFile: configuration.caFile)
        switch configuration.authentication {
        case .token(let keyFile, let keyId, let teamId):
            do {
                let signer = try APNsJWTSigner(keyFile: keyFile, keyId: keyId, teamId: teamId)
                tokens = try APNsTokenProvider(signer: signer, refreshAge: configuration.tokenRefreshAge, now: now)
            } catch {
                throw .credentials(error)
            }
        case .certificate(let certificateFile, let keyFile, let keyPassword):
            tokens = nil
            tls.clientCertificateFile = certificateFile
            tls.clientKeyFile = keyFile
            tls.clientKeyPassword = keyPassword
        }
        (self.http, ownsHTTP) = try ProviderHTTPClient.make(
            shared: http, tls: tls, hostConnections: configuration.connections,
            totalConnections: configuration.connections, maxInFlight: configuration.maxInFlight,
            timeout: configuration.requestTimeout, logger: logger)
    }

    /// One attempt, classified. `expiredProviderToken` has already dropped the stale token, so an immediate
    /// second attempt signs a new one.
    public func attempt(_ notification: APNsNotification) async -> DeliveryOutcome {
        let apnsId = (notification.apnsId ?? FastUUID.make()).uuidString
        let token = tokens?.currentToken()
        let request = makeRequest(notification, apnsId: apnsId, bearer: token)
        let response: CurlResponse
        do {
            response = try await http.send(request)
        } catch {
            return .transportFailure(error)
        }
        let outcome = APNsResponseMapping.outcome(
            status: response.status, headers: response.headers, body: response.body, sentId: apnsId, now: now()
        )
        if case .expiredProviderToken = outcome, let token { tokens?.rejected(token) }
        return outcome
    }

    /// Attempts until the outcome is final under `policy`: backs off on 429/5xx/connection trouble (at least
    /// Retry-After), signs a new token after `ExpiredProviderToken`.
    /// - Parameters:
    ///   - random: uniform in [0, 1), for backoff jitter.
    ///   - sleep: waits between attempts.
    public func send(
        _ notification: APNsNotification,
        policy: RetryPolicy = RetryPolicy(),
        random: @Sendable () -> Double = { Double.random(in: 0..<1) },
        sleep: DeliverySleep = { try await Task.sleep(for: $0) }
    ) async -> DeliveryResult {
        // One apns-id for every attempt, so Apple and our logs see retries of the same notification.
        var notification = notification
        if notification.apnsId == nil { notification.apnsId = FastUUID.make() }
        let fixed = notification
        return await RetryLoop.run(
            policy: policy, random: random, sleep: sleep,
            attempt: { await attempt(fixed) }
        )
    }

    /// Closes the connections if this client made them.
    public func shutdown() async {
        if ownsHTTP { await http.shutdown() }
    }

    public var httpStatistics: CurlStatistics { http.statistics }

    func makeRequest(_ notification: APNsNotification, apnsId: String, bearer: String?) -> CurlRequest {
        var headers = HTTPFields()
        headers.reserveCapacity(8)
        if let bearer { headers.append(HTTPField(name: .authorization, value: "bearer " + bearer)) }
        headers.append(HTTPField(name: .apnsTopic, value: notification.topic ?? configuration.topic))
        headers.append(HTTPField(name: .apnsPushType, value: notification.pushType.rawValue))
        headers.append(HTTPField(name: .apnsPriority, value: String(notification.priority)))
        if let expiration = notification.expiration {
            headers.append(HTTPField(name: .apnsExpiration, value: String(expiration)))
        }
        headers.append(HTTPField(name: .apnsId, value: apnsId))
        if let collapseId = notification.collapseId {
            headers.append(HTTPField(name: .apnsCollapseId, value: collapseId))
        }
        headers.append(HTTPField(name: .contentType, value: "application/json"))
        return CurlRequest(
            method: .post, url: configuration.endpoint + "/3/device/" + notification.deviceToken, headers: headers,
            body: notification.payload, timeout: configuration.requestTimeout
        )
    }
}
