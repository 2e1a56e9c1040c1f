import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore

/// Sends messages through FCM HTTP v1 for one service account and project.
public final class FCMClient: PushProvider {
    public let name = "fcm"
    public let configuration: FCMConfiguration
    public let projectId: String
    private let transport: ProviderTransport
    /// The token endpoint's client: the transport's own when it is libcurl's, else one of its own.
    private let tokenHTTP: CurlClient
    private let ownsTokenHTTP: Bool
    private let tokens: OAuthAccessTokenProvider
    private let sendURL: String
    private let clock: ServiceClock

    /// - Parameter clock: the clock for assertions, token expiry and Retry-After dates.
    public init(
        configuration: FCMConfiguration,
        logger: Logger? = nil,
        clock: ServiceClock = .system
    ) throws(DeliverySetupError) {
        self.configuration = configuration
        self.clock = clock
        let account: FCMServiceAccount
        let signer: FCMAssertionSigner
        do {
            account = try FCMServiceAccount(file: configuration.serviceAccountFile)
            signer = try FCMAssertionSigner(account: account)
        } catch {
            throw .credentials(error)
        }
        guard let projectId = configuration.projectId ?? account.projectId else {
            throw .credentials(.invalidServiceAccount("no project id configured and none in the file"))
        }
        self.projectId = projectId
        sendURL = configuration.endpoint + "/v1/projects/" + projectId + "/messages:send"
        let tls = CurlTLSConfiguration(caFile: configuration.caFile)
        // On libcurl, one more connection than the send host needs, for the token endpoint.
        transport = try ProviderTransport(
            configuration.transport,
            settings: .init(
                tls: tls, hostConnections: configuration.connections, totalConnections: configuration.connections + 1,
                maxInFlight: configuration.maxInFlight, timeout: configuration.requestTimeout),
            logger: logger)
        if let shared = transport.curlClient {
            (tokenHTTP, ownsTokenHTTP) = (shared, false)
        } else {
            (tokenHTTP, ownsTokenHTTP) = try ProviderHTTPClient.make(
                shared: nil, tls: tls, hostConnections: 1, totalConnections: 1, maxInFlight: 16,
                timeout: configuration.requestTimeout, logger: logger)
        }
        tokens = FCMAccessTokenProvider.make(
            signer: signer, tokenEndpoint: configuration.tokenEndpoint ?? account.tokenURI, http: tokenHTTP,
            timeout: configuration.requestTimeout, clock: clock
        )
    }

    /// One attempt of many messages at once (a chunk of a fan-out batch): one access token, one header block
    /// and one submission to the HTTP/2 library for all of them. Outcomes in the order given. A 401 has already dropped
    /// the cached access token, so an immediate second attempt fetches a new one.
    public func attempt(all messages: [FCMMessage]) async -> [DeliveryOutcome] {
        await attempt(all: messages.map(\.message))
    }

    /// `attempt(all:)` of `message` objects (`{"token": …, "data": …, …}`); `validateOnly` asks FCM to check
    /// them without delivering.
    public func attempt(all messages: [JSON], validateOnly: Bool = false) async -> [DeliveryOutcome] {
        let accessToken: String
        do {
            accessToken = try await tokens.accessToken()
        } catch {
            return messages.map { _ in .accessTokenFailure(error) }
        }
        let headers = transport.sharedLines([.authorization: "Bearer " + accessToken, .contentType: "application/json"])
        let requests = messages.map { message in
            var document: [String: JSON] = ["message": message]
            if validateOnly { document["validate_only"] = true }
            return ProviderRequest(
                method: .post, url: sendURL, shared: headers, body: JSON.object(document).encodedBytes(),
                timeout: configuration.requestTimeout)
        }
        return await transport.send(all: requests).map { outcome(of: $0, accessToken: accessToken) }
    }

    /// Classifies one answer; a 401 drops the access token it was sent with.
    private func outcome(
        of result: Result<ProviderResponse, TransportFailure>, accessToken: String
    ) -> DeliveryOutcome {
        let response: ProviderResponse
        switch result {
        case .success(let answered): response = answered
        case .failure(let error): return .transportFailure(error)
        }
        let outcome = FCMResponseMapping.outcome(
            status: response.status, headers: response.headers, body: response.body, now: clock.now()
        )
        if case .expiredProviderToken = outcome { tokens.rejected(accessToken) }
        return outcome
    }

    /// Closes the connections.
    public func shutdown() async {
        await transport.shutdown()
        if ownsTokenHTTP { await tokenHTTP.shutdown() }
    }

    /// The messages' client's and the token endpoint's, whether they share one client (libcurl) or not.
    public var httpStatistics: TransportStatistics {
        ownsTokenHTTP ? transport.statistics + TransportStatistics(tokenHTTP.statistics) : transport.statistics
    }
}

extension FCMMessage: OneDeviceRequest {}
