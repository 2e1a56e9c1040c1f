import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore

/// Sends notifications to APNs over HTTP/2 for one credential (token or certificate) and topic.
public final class APNsClient: PushProvider {
    public let name = "apns"
    public let configuration: APNsConfiguration
    private let transport: ProviderTransport
    private let tokens: APNsTokenProvider?
    private let clock: ServiceClock

    /// - Parameter clock: the clock for provider tokens and Retry-After dates.
    public init(
        configuration: APNsConfiguration,
        logger: Logger? = nil,
        clock: ServiceClock = .system
    ) throws(DeliverySetupError) {
        self.configuration = configuration
        self.clock = clock
        var tls = CurlTLSConfiguration(caFile: configuration.caFile)
        switch configuration.authentication {
        case .token(let keyFile, let keyId, let teamId):
            do {
                let signer = try APNsJWTSigner(keyFile: keyFile, keyId: keyId, teamId: teamId)
                tokens = try APNsTokenProvider(signer: signer, refreshAge: configuration.tokenRefreshAge, clock: clock)
            } catch {
                throw .credentials(error)
            }
        case .certificate(let certificateFile, let keyFile, let keyPassword):
            tokens = nil
            tls.clientCertificateFile = certificateFile
            tls.clientKeyFile = keyFile
            tls.clientKeyPassword = keyPassword
        }
        transport = try ProviderTransport(
            configuration.transport,
            settings: .init(
                tls: tls, hostConnections: configuration.connections, totalConnections: configuration.connections,
                maxInFlight: configuration.maxInFlight, timeout: configuration.requestTimeout),
            logger: logger)
    }

    /// One attempt of many notifications at once (a chunk of a fan-out batch): one submission to the HTTP/2 library
    /// and one wake-up for all of them, and the header lines they share built once (`SharedHeaderLines`).
    /// Outcomes in the order given. `expiredProviderToken` has already dropped the stale provider token, so
    /// an immediate second attempt signs a new one.
    public func attempt(all notifications: [APNsNotification]) async -> [DeliveryOutcome] {
        // The device token becomes the request's path: one that is not hex is never sent (SPEC §12.7).
        guard notifications.allSatisfy({ OutboundText.isPathSafeDeviceToken($0.deviceToken) }) else {
            var outcomes = [DeliveryOutcome](
                repeating: .permanent(reason: .forbiddenEndpoint), count: notifications.count)
            let safe = notifications.indices.filter {
                OutboundText.isPathSafeDeviceToken(notifications[$0].deviceToken)
            }
            if !safe.isEmpty {
                for (i, outcome) in zip(safe, await attempt(all: safe.map { notifications[$0] })) {
                    outcomes[i] = outcome
                }
            }
            return outcomes
        }
        let token = tokens?.currentToken()
        // Normally one block serves the whole chunk; comparing with the last one spares hashing the
        // provider token for every notification.
        var blocks: [(shared: SharedHeaders, block: SharedHeaderLines)] = []
        var ids: [String] = []
        ids.reserveCapacity(notifications.count)
        let requests = notifications.map { notification in
            let shared = SharedHeaders(notification, configuration: configuration, bearer: token)
            let block: SharedHeaderLines
            if let last = blocks.last, last.shared == shared {
                block = last.block
            } else if let earlier = blocks.first(where: { $0.shared == shared }) {
                block = earlier.block
            } else {
                block = transport.sharedLines(shared.fields)
                blocks.append((shared, block))
            }
            let apnsId = FastUUID.string(notification.apnsId)
            ids.append(apnsId)
            return makeRequest(notification, headers: [.apnsId: apnsId], shared: block)
        }
        let results = await transport.send(all: requests)
        return zip(results, ids).map { result, apnsId in outcome(of: result, sentId: apnsId, bearer: token) }
    }

    /// Classifies one answer; `ExpiredProviderToken` drops the token it was sent with.
    private func outcome(
        of result: Result<ProviderResponse, TransportFailure>, sentId: String, bearer: String?
    )
        -> DeliveryOutcome
    {
        let response: ProviderResponse
        switch result {
        case .success(let answered): response = answered
        case .failure(let error): return .transportFailure(error)
        }
        let outcome = APNsResponseMapping.outcome(
            status: response.status, headers: response.headers, body: response.body, sentId: sentId, now: clock.now()
        )
        if case .expiredProviderToken = outcome, let bearer { tokens?.rejected(bearer) }
        return outcome
    }

    /// Closes the connections.
    public func shutdown() async {
        await transport.shutdown()
    }

    public var httpStatistics: TransportStatistics { transport.statistics }

    func makeRequest(_ notification: APNsNotification, apnsId: String, bearer: String?) -> ProviderRequest {
        var headers = SharedHeaders(notification, configuration: configuration, bearer: bearer).fields
        headers.append(HTTPField(name: .apnsId, value: apnsId))
        return makeRequest(notification, headers: headers, shared: nil)
    }

    private func makeRequest(
        _ notification: APNsNotification, headers: HTTPFields, shared: SharedHeaderLines?
    )
        -> ProviderRequest
    {
        ProviderRequest(
            method: .post, url: configuration.endpoint + "/3/device/" + notification.deviceToken, headers: headers,
            shared: shared, body: notification.payload, timeout: configuration.requestTimeout)
    }

    /// Every header but `apns-id`: the same for all the notifications of one push (and provider token).
    struct SharedHeaders: Equatable {
        let bearer: String?
        let topic: String
        let pushType: String
        let priority: Int
        let expiration: Int64?
        let collapseId: String?

        init(_ notification: APNsNotification, configuration: APNsConfiguration, bearer: String?) {
            self.bearer = bearer
            topic = notification.topic ?? configuration.topic
            pushType = notification.pushType.rawValue
            priority = notification.priority
            expiration = notification.expiration
            collapseId = notification.collapseId
        }

        var fields: HTTPFields {
            var headers = HTTPFields()
            headers.reserveCapacity(8)
            if let bearer { headers.append(HTTPField(name: .authorization, value: "bearer " + bearer)) }
            headers.append(HTTPField(name: .apnsTopic, value: topic))
            headers.append(HTTPField(name: .apnsPushType, value: pushType))
            headers.append(HTTPField(name: .apnsPriority, value: String(priority)))
            if let expiration { headers.append(HTTPField(name: .apnsExpiration, value: String(expiration))) }
            if let collapseId { headers.append(HTTPField(name: .apnsCollapseId, value: collapseId)) }
            headers.append(HTTPField(name: .contentType, value: "application/json"))
            return headers
        }
    }
}
