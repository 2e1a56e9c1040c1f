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
    private let http: CurlClient
    private let ownsHTTP: Bool
    private let tokens: OAuthAccessTokenProvider
    private let sendURL: String
    private let clock: ServiceClock

    /// - Parameters:
    ///   - http: a client to share; by default the FCM client makes and owns one.
    ///   - now: the clock for assertions, token expiry and Retry-After dates.
    public init(
        configuration: FCMConfiguration,
        http: CurlClient? = nil,
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
        // One more connection than the send host needs, for the token endpoint.
        (self.http, ownsHTTP) = try ProviderHTTPClient.make(
            shared: http, tls: CurlTLSConfiguration(caFile: configuration.caFile),
            hostConnections: configuration.connections, totalConnections: configuration.connections + 1,
            maxInFlight: configuration.maxInFlight, timeout: configuration.requestTimeout, logger: logger)
        tokens = FCMAccessTokenProvider.make(
            signer: signer, tokenEndpoint: configuration.tokenEndpoint ?? account.tokenURI, http: self.http,
            timeout: configuration.requestTimeout, clock: clock
        )
    }

    /// One attempt of many messages at once (a chunk of a fan-out batch): one access token, one header block
    /// and one submission to libcurl for all of them. Outcomes in the order given. A 401 has already dropped
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
        let headers = Self.headers(accessToken)
        let requests = messages.map { message in
            var document: [String: JSON] = ["message": message]
            if validateOnly { document["validate_only"] = true }
            return CurlRequest(
                method: .post, url: sendURL, body: JSON.object(document).encodedBytes(),
                timeout: configuration.requestTimeout, sharedHeaders: headers)
        }
        return await http.send(all: requests).map { outcome(of: $0, accessToken: accessToken) }
    }

    private static func headers(_ accessToken: String) -> CurlHeaderBlock {
        CurlHeaderBlock([.authorization: "Bearer " + accessToken, .contentType: "application/json"])
    }

    /// Classifies one answer; a 401 drops the access token it was sent with.
    private func outcome(of result: Result<CurlResponse, CurlError>, accessToken: String) -> DeliveryOutcome {
        let response: CurlResponse
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

    /// Closes the connections if this client made them.
    public func shutdown() async {
        if ownsHTTP { await http.shutdown() }
    }

    public var httpStatistics: CurlStatistics { http.statistics }
}

extension FCMMessage: OneDeviceRequest {}
