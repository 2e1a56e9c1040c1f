import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore

/// Honor Push (`vendor: honor`; docs/vendors.md): HMS's shape in camelCase without the `message` wrapper, an
/// OAuth client-credentials token, up to 1,000 tokens a request, expired tokens named in the answer.
final class HonorClient: VendorClient {
    let vendor = AndroidVendor.honor
    let batchLimit = 1000
    static let requiredKeys = ["app_id", "client_id", "client_secret"]
    static let productionEndpoint = "https://push-api.cloud.hihonor.com"
    static let productionTokenEndpoint = "https://iam.developer.hihonor.com/auth/token"
    static let maxTimeToLive: Int64 = 1_296_000
    static let maxMessageBytes = 4096

    private let sendURL: String
    private let intentHost: String
    private let http: VendorHTTP
    private let tokens: OAuthAccessTokenProvider
    private let clock: ServiceClock

    init(
        settings: VendorSettings, logger: Logger?, clock: ServiceClock = .system
    )
        throws(DeliverySetupError)
    {
        let appId = settings["app_id"]!, clientId = settings["client_id"]!, secret = settings["client_secret"]!
        sendURL = (settings["endpoint"] ?? Self.productionEndpoint) + "/api/v1/\(appId)/sendMessage"
        intentHost = settings["intent_host"] ?? "cn.leancloud.push"
        self.clock = clock
        let http = try VendorHTTP(caFile: settings["ca_file"], logger: logger)
        self.http = http
        let tokenEndpoint = settings["token_endpoint"] ?? Self.productionTokenEndpoint
        tokens = OAuthAccessTokenProvider(http: http.client, clock: clock) { _ in
            OAuthAccessTokenProvider.clientCredentialsRequest(
                endpoint: tokenEndpoint, clientId: clientId, secret: secret, timeout: http.timeout)
        }
    }

    func message(for content: VendorContent, timeToLive: Int64?) -> Result<VendorMessage, VendorRefusal> {
        var android: [String: JSON] = [:]
        for key in ["targetUserType", "biTag"] {
            if let value = content.options[key] { android[key] = value }
        }
        if let timeToLive { android["ttl"] = .string("\(min(max(timeToLive, 1), Self.maxTimeToLive))s") }
        if !content.silent {
            var notification: [String: JSON] = [
                "clickAction": [
                    "type": 1, "intent": .string(VendorText.clickIntent(host: intentHost, content: content.text)),
                ]
            ]
            if let title = content.title { notification["title"] = .string(title) }
            if let body = content.body { notification["body"] = .string(body) }
            if let importance = content.options["importance"] { notification["importance"] = importance }
            android["notification"] = .object(notification)
        }
        let body: JSON = ["data": .string(content.text), "android": .object(android)]
        guard body.encoded().utf8.count <= Self.maxMessageBytes else {
            return .failure(.contentTooLong("Honor takes a message of at most 4096 bytes"))
        }
        return .success(VendorMessage(body: body, silent: content.silent))
    }

    func attempt(_ message: VendorMessage, to tokens: [String]) async -> [DeliveryOutcome] {
        let accessToken: String
        do {
            accessToken = try await self.tokens.accessToken()
        } catch {
            return .all(.accessTokenFailure(error), tokens.count)
        }
        var body = message.body.objectValue ?? [:]
        body["token"] = .array(tokens.map { .string($0) })
        let answer = await http.postJSON(
            sendURL, .object(body),
            headers: [
                .authorization: "Bearer " + accessToken,
                HTTPField.Name("timestamp")!: String(LeanDate.unixMilliseconds(clock.now())),
            ])
        let outcomes = Self.outcomes(answer, tokens: tokens)
        if outcomes.refusesAccessToken {
            self.tokens.rejected(accessToken)
        }
        return outcomes
    }

    static func outcomes(_ answer: Result<CurlResponse, CurlError>, tokens: [String]) -> [DeliveryOutcome] {
        let reply = VendorReply(answer, vendor: .honor, devices: tokens.count)
        guard let response = reply.response else { return reply.unanswered }
        let body = reply.body, code = reply.code
        if response.status == 401 || code == "80200001" || code == "80200003" { return reply.all(.auth) }
        if response.status >= 500 { return reply.all(.retry) }
        guard code == "200" else { return reply.all(.permanent) }
        let data = body?["data"]
        let expired = Set((data?["expireTokens"]?.arrayValue ?? []).compactMap(\.stringValue))
        let failed = Set((data?["failTokens"]?.arrayValue ?? []).compactMap(\.stringValue))
        let id = data?["requestId"]?.stringValue ?? ""
        return tokens.map { token in
            if expired.contains(token) { return VendorReason(.honor, "expireTokens", .invalidToken).outcome }
            if failed.contains(token) { return VendorReason(.honor, "failTokens", .retry).outcome }
            return .success(id: id)
        }
    }

    var httpStatistics: TransportStatistics { TransportStatistics(http.client.statistics) }
    func shutdown() async { await http.shutdown() }
}
