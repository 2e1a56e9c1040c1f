import Crypto
import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore

/// OPPO / HeyTap Push (`vendor: oppo`; docs/vendors.md): a signed auth token per host, notifications only,
/// `unicast_batch` for many devices with an answer per device; a registration id says whether it is Chinese or
/// overseas, and each goes to its own host.
final class OPPOClient: VendorClient {
    let vendor = AndroidVendor.oppo
    let batchLimit = 1000
    static let requiredKeys = ["app_key", "master_secret"]
    static let productionEndpoint = "https://api.push.oppomobile.com"
    static let productionGlobalEndpoint = "https://api-intl.push.oppomobile.com"
    /// OPPO keeps an offline message at most 10 days.
    static let maxTimeToLive: Int64 = 864_000
    /// Auth tokens live 24 h; taken as 23 so one is never used in its last hour.
    static let tokenLifetime: Duration = .seconds(23 * 3600)

    private let china: Host
    private let global: Host
    private let channelId: String?
    private let category: String?
    private let http: VendorHTTP

    /// One of OPPO's hosts with its own auth token.
    struct Host: Sendable {
        let base: String
        let tokens: OAuthAccessTokenProvider
    }

    init(
        settings: VendorSettings, logger: Logger?, clock: ServiceClock = .system
    )
        throws(DeliverySetupError)
    {
        let appKey = settings["app_key"]!, masterSecret = settings["master_secret"]!
        channelId = settings["channel_id"]
        category = settings["category"]
        let http = try VendorHTTP(caFile: settings["ca_file"], logger: logger)
        self.http = http
        func host(_ base: String) -> Host {
            Host(
                base: base,
                tokens: OAuthAccessTokenProvider(http: http.client, clock: clock, read: Self.readAuth) { now in
                    let timestamp = String(LeanDate.unixMilliseconds(now))
                    let sign = VendorText.hex(SHA256.hash(data: Array((appKey + timestamp + masterSecret).utf8)))
                    return OAuthAccessTokenProvider.formRequest(
                        endpoint: base + "/server/v1/auth",
                        form: [("app_key", appKey), ("timestamp", timestamp), ("sign", sign)], timeout: http.timeout)
                })
        }
        china = host(settings["endpoint"] ?? Self.productionEndpoint)
        global = host(settings["global_endpoint"] ?? Self.productionGlobalEndpoint)
    }

    /// OPPO's answer to the auth request: `{"code":0,"data":{"auth_token"}}`.
    @Sendable static func readAuth(_ response: CurlResponse) throws(AccessTokenError) -> OAuthTokenResponse {
        let body = VendorHTTP.json(response)
        guard response.status == 200, VendorText.code(body?["code"]) == "0",
            let token = body?["data"]?["auth_token"]?.stringValue, !token.isEmpty
        else {
            throw .refused(
                status: response.status, error: VendorText.code(body?["code"]),
                body: String(decoding: response.body.prefix(512), as: UTF8.self))
        }
        return OAuthTokenResponse(accessToken: token, expiresIn: tokenLifetime)
    }

    /// Chinese registration ids are one part, or start `CN_` or `OPPO_CN_` (OPPO's documentation).
    static func isChinese(_ token: String) -> Bool {
        let parts = token.split(separator: "_", omittingEmptySubsequences: false)
        return parts.count == 1 || parts.first == "CN" || (parts.first == "OPPO" && parts.dropFirst().first == "CN")
    }

    func message(for content: VendorContent, timeToLive: Int64?) -> Result<VendorMessage, VendorRefusal> {
        guard !content.silent else { return .failure(.passThroughUnsupported) }
        if let refusal = VendorText.checkLengths(content, title: 50, body: 50, vendor: vendor) {
            return .failure(refusal)
        }
        var notification: [String: JSON] = [
            "title": .string(content.title ?? ""), "content": .string(content.body ?? ""),
            "click_action_type": content.options["click_action_type"] ?? 0,
            // The LeanCloud JSON, as the app's click target reads its parameters.
            "action_parameters": .string(content.text),
        ]
        guard content.text.utf8.count <= 4000 else {
            return .failure(.contentTooLong("OPPO takes action parameters of at most 4000 bytes"))
        }
        for key in ["click_action_activity", "click_action_url", "style", "sub_title", "notify_level"] {
            if let value = content.options[key] { notification[key] = value }
        }
        if let channel = content.notificationChannel ?? content.options["channel_id"]?.stringValue ?? channelId {
            notification["channel_id"] = .string(channel)
        }
        if let category = content.options["category"]?.stringValue ?? category {
            notification["category"] = .string(category)
        }
        if let timeToLive {
            notification["off_line"] = true
            notification["off_line_ttl"] = .int(min(max(timeToLive, 1), Self.maxTimeToLive))
        }
        return .success(VendorMessage(body: .object(notification), silent: false))
    }

    func attempt(_ message: VendorMessage, to tokens: [String]) async -> [DeliveryOutcome] {
        var outcomes = [DeliveryOutcome?](repeating: nil, count: tokens.count)
        let byHost = Dictionary(grouping: tokens.indices) { Self.isChinese(tokens[$0]) }
        for (chinese, indices) in byHost {
            let answered = await send(message, to: indices.map { tokens[$0] }, host: chinese ? china : global)
            for (index, outcome) in zip(indices, answered) { outcomes[index] = outcome }
        }
        return outcomes.map { $0! }
    }

    private func send(_ message: VendorMessage, to tokens: [String], host: Host) async -> [DeliveryOutcome] {
        let authToken: String
        do {
            authToken = try await host.tokens.accessToken()
        } catch {
            return .all(.accessTokenFailure(error), tokens.count)
        }
        let messages = JSON.array(
            tokens.map { ["target_type": 2, "target_value": .string($0), "notification": message.body] })
        let answer = await http.postForm(
            host.base + "/server/v1/message/notification/unicast_batch",
            [(name: "auth_token", value: authToken), (name: "messages", value: messages.encoded())])
        let outcomes = Self.outcomes(answer, tokens: tokens)
        if outcomes.refusesAccessToken {
            host.tokens.rejected(authToken)
        }
        return outcomes
    }

    static func outcomes(_ answer: Result<CurlResponse, CurlError>, tokens: [String]) -> [DeliveryOutcome] {
        let reply = VendorReply(answer, vendor: .oppo, devices: tokens.count)
        guard let response = reply.response else { return reply.unanswered }
        let body = reply.body, code = reply.code
        switch code {
        case "0": break
        case "11": return reply.all(.auth)
        case "33": return reply.all(.quota)
        case "-1", "-2": return reply.all(.retry)
        default: return response.status >= 500 ? reply.all(.retry) : reply.all(.permanent)
        }
        var byToken: [String: JSON] = [:]
        for item in body?["data"]?.arrayValue ?? [] {
            if let token = item["registrationId"]?.stringValue { byToken[token] = item }
        }
        return tokens.map { token in
            guard let item = byToken[token] else { return VendorReason(.oppo, "no answer", .retry).outcome }
            guard let error = VendorText.code(item["errorCode"]) else {
                return .success(id: item["messageId"]?.stringValue ?? "")
            }
            return VendorReason(.oppo, error, error == "10000" ? .invalidToken : .permanent).outcome
        }
    }

    var httpStatistics: TransportStatistics { TransportStatistics(http.client.statistics) }
    func shutdown() async { await http.shutdown() }
}
