import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore

/// Huawei Push Kit (`vendor: HMS`; docs/vendors.md): an OAuth client-credentials token, up to 1,000 tokens a
/// request, partial-success answers that name the illegal tokens.
final class HMSClient: VendorClient {
    let vendor = AndroidVendor.hms
    let batchLimit = 1000
    static let requiredKeys = ["app_id", "client_secret"]
    static let productionEndpoint = "https://push-api.cloud.huawei.com"
    static let productionTokenEndpoint = "https://oauth-login.cloud.huawei.com/oauth2/v3/token"
    /// HMS keeps an undelivered message at most 15 days.
    static let maxTimeToLive: Int64 = 1_296_000
    /// Bytes of the message without its tokens (HMS answers 80300008 beyond them).
    static let maxMessageBytes = 4096

    private let sendURL: String
    private let intentHost: String
    private let category: String?
    private let http: VendorHTTP
    private let tokens: OAuthAccessTokenProvider

    init(
        settings: VendorSettings, logger: Logger?, clock: ServiceClock = .system
    )
        throws(DeliverySetupError)
    {
        let appId = settings["app_id"]!, secret = settings["client_secret"]!
        sendURL = (settings["endpoint"] ?? Self.productionEndpoint) + "/v1/\(appId)/messages:send"
        intentHost = settings["intent_host"] ?? "cn.leancloud.push"
        category = settings["category"]
        let http = try VendorHTTP(caFile: settings["ca_file"], logger: logger)
        self.http = http
        let tokenEndpoint = settings["token_endpoint"] ?? Self.productionTokenEndpoint
        tokens = OAuthAccessTokenProvider(http: http.client, clock: clock) { _ in
            OAuthAccessTokenProvider.clientCredentialsRequest(
                endpoint: tokenEndpoint, clientId: appId, secret: secret, timeout: http.timeout)
        }
    }

    func message(for content: VendorContent, timeToLive: Int64?) -> Result<VendorMessage, VendorRefusal> {
        .success(
            VendorMessage(
                body: .object(
                    HMSMessage.make(
                        content, intentHost: intentHost, category: category, timeToLive: timeToLive,
                        maxTimeToLive: Self.maxTimeToLive)),
                silent: content.silent)
        ).flatMap { message in
            message.body.encoded().utf8.count <= Self.maxMessageBytes
                ? .success(message) : .failure(.contentTooLong("HMS takes a message of at most 4096 bytes"))
        }
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
            sendURL, ["validate_only": false, "message": .object(body)],
            headers: [.authorization: "Bearer " + accessToken])
        let outcomes = HMSAnswer.outcomes(answer, tokens: tokens)
        if outcomes.refusesAccessToken {
            self.tokens.rejected(accessToken)
        }
        // "All tokens invalid" is acted on only for a request of one token: a wrong app id answers it too.
        if tokens.count > 1, HMSAnswer.allInvalid(answer) {
            var each: [DeliveryOutcome] = []
            for token in tokens { each += await attempt(message, to: [token]) }
            return each
        }
        return outcomes
    }

    var httpStatistics: TransportStatistics { TransportStatistics(http.client.statistics) }
    func shutdown() async { await http.shutdown() }
}
