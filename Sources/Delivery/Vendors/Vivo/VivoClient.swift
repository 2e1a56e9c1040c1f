import Crypto
import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore
import Synchronization

/// vivo Push (`vendor: vivo`; docs/vendors.md): a signed auth token, notifications only, `/message/send` for one
/// device and a list push (the message saved once, then sent to lists of regIds) for several.
final class VivoClient: VendorClient {
    let vendor = AndroidVendor.vivo
    let batchLimit = 1000
    static let requiredKeys = ["app_id", "app_key", "app_secret"]
    static let productionEndpoint = "https://api-push.vivo.com.cn"
    /// vivo keeps a message between 15 minutes and 7 days.
    static let timeToLiveRange: ClosedRange<Int64> = 900...604_800
    static let tokenLifetime: Duration = .seconds(23 * 3600)
    static let retryCodes: Set<String> = ["10040"]

    private let base: String
    private let appId: Int64
    private let category: String?
    private let http: VendorHTTP
    private let tokens: OAuthAccessTokenProvider
    /// The list pushes' saved messages (`taskId`) by message, so a push saves its message once however many
    /// lists it is sent to.
    private let tasks = Mutex<[VendorMessage: String]>([:])

    init(
        settings: VendorSettings, logger: Logger?, clock: ServiceClock = .system
    )
        throws(DeliverySetupError)
    {
        let appKey = settings["app_key"]!, appSecret = settings["app_secret"]!
        guard let appId = Int64(settings["app_id"]!) else {
            throw .credentials(.invalidClientCredentials("\(settings.name("app_id")) must be an integer"))
        }
        self.appId = appId
        base = settings["endpoint"] ?? Self.productionEndpoint
        category = settings["category"]
        let http = try VendorHTTP(caFile: settings["ca_file"], logger: logger)
        self.http = http
        let authURL = base + "/message/auth"
        tokens = OAuthAccessTokenProvider(http: http.client, clock: clock, read: Self.readAuth) { now in
            let timestamp = LeanDate.unixMilliseconds(now)
            let sign = VendorText.hex(Insecure.MD5.hash(data: Array("\(appId)\(appKey)\(timestamp)\(appSecret)".utf8)))
            let body: JSON = [
                "appId": .int(appId), "appKey": .string(appKey), "timestamp": .int(timestamp), "sign": .string(sign),
            ]
            return CurlRequest(
                method: .post, url: authURL, headers: [.contentType: "application/json;charset=utf-8"],
                body: Array(body.encoded().utf8), timeout: http.timeout)
        }
    }

    @Sendable static func readAuth(_ response: CurlResponse) throws(AccessTokenError) -> OAuthTokenResponse {
        let body = VendorHTTP.json(response)
        guard response.status == 200, VendorText.code(body?["result"]) == "0",
            let token = body?["authToken"]?.stringValue, !token.isEmpty
        else {
            throw .refused(
                status: response.status, error: VendorText.code(body?["result"]),
                body: String(decoding: response.body.prefix(512), as: UTF8.self))
        }
        return OAuthTokenResponse(accessToken: token, expiresIn: tokenLifetime)
    }

    func message(for content: VendorContent, timeToLive: Int64?) -> Result<VendorMessage, VendorRefusal> {
        guard !content.silent else { return .failure(.passThroughUnsupported) }
        if let refusal = VendorText.checkLengths(content, title: 40, body: 100, vendor: vendor) {
            return .failure(refusal)
        }
        // `_nid` travels with the custom keys, so that an open of a vivo notification names its push (SPEC §4.4)
        // and each push's list payload is saved as its own.
        var custom = content.customKeys
        custom["_nid"] = content.json["_nid"]
        guard custom.count <= 10 else {
            return .failure(.contentTooLong("vivo takes at most 10 custom keys with _nid (clientCustomMap)"))
        }
        var body: [String: JSON] = [
            "appId": .int(appId), "notifyType": content.options["notifyType"] ?? 4,
            "title": .string(content.title ?? ""), "content": .string(content.body ?? ""),
            "skipType": content.options["skipType"] ?? 1,
            "clientCustomMap": .object(custom.mapValues { .string($0.stringValue ?? $0.encoded()) }),
            "networkType": content.options["networkType"] ?? -1,
        ]
        for key in ["skipContent", "pushMode", "classification"] {
            if let value = content.options[key] { body[key] = value }
        }
        if let category = content.options["category"]?.stringValue ?? category { body["category"] = .string(category) }
        if let timeToLive {
            body["timeToLive"] = .int(
                min(max(timeToLive, Self.timeToLiveRange.lowerBound), Self.timeToLiveRange.upperBound))
        }
        return .success(VendorMessage(body: .object(body), silent: false))
    }

    func attempt(_ message: VendorMessage, to tokens: [String]) async -> [DeliveryOutcome] {
        let authToken: String
        do {
            authToken = try await self.tokens.accessToken()
        } catch {
            return .all(.accessTokenFailure(error), tokens.count)
        }
        let headers: HTTPFields = [HTTPField.Name("authToken")!: authToken]
        let outcomes: [DeliveryOutcome]
        if tokens.count == 1 {
            var body = message.body.objectValue ?? [:]
            body["regId"] = .string(tokens[0])
            body["requestId"] = .string(FastUUID.string(FastUUID.make()))
            outcomes = Self.single(await http.postJSON(base + "/message/send", .object(body), headers: headers))
        } else {
            outcomes = await list(message, tokens, headers: headers)
        }
        if outcomes.refusesAccessToken {
            self.tokens.rejected(authToken)
            tasks.withLock { $0[message] = nil }
        }
        return outcomes
    }

    /// The list push: the message saved once (its `taskId` kept), then sent to the regIds.
    private func list(_ message: VendorMessage, _ tokens: [String], headers: HTTPFields) async -> [DeliveryOutcome] {
        var taskId = tasks.withLock { $0[message] }
        if taskId == nil {
            var body = message.body.objectValue ?? [:]
            body["requestId"] = .string(FastUUID.string(FastUUID.make()))
            let answer = await http.postJSON(base + "/message/saveListPayload", .object(body), headers: headers)
            switch Self.answer(answer) {
            case .accepted(let saved):
                guard let id = saved["taskId"]?.stringValue else {
                    return .all(VendorReason(.vivo, "no taskId", .retry).outcome, tokens.count)
                }
                taskId = id
                tasks.withLock { $0[message] = id }
            case .refused(let outcome):
                return .all(outcome, tokens.count)
            }
        }
        let body: JSON = [
            "appId": message.body["appId"] ?? 0, "regIds": .array(tokens.map { .string($0) }),
            "taskId": .string(taskId!), "requestId": .string(FastUUID.string(FastUUID.make())),
        ]
        return Self.listed(await http.postJSON(base + "/message/pushToList", body, headers: headers), tokens: tokens)
    }

    /// A result code as the whole request's outcome.
    static func failure(_ code: String, status: Int) -> DeliveryOutcome {
        switch code {
        case "10000": VendorReason(.vivo, code, .auth).outcome
        case "10070": VendorReason(.vivo, code, .quota).outcome
        case "10302": VendorReason(.vivo, code, .invalidToken).outcome
        case _ where retryCodes.contains(code) || status >= 500: VendorReason(.vivo, code, .retry).outcome
        default: VendorReason(.vivo, code, .permanent).outcome
        }
    }

    /// A vivo answer: its body when `result` is 0, else the outcome it means for every device of the request.
    enum Answer {
        case accepted(JSON)
        case refused(DeliveryOutcome)
    }

    static func answer(_ result: Result<CurlResponse, CurlError>) -> Answer {
        switch result {
        case .failure(let error): return .refused(.transportFailure(error))
        case .success(let response):
            let body = VendorHTTP.json(response)
            let code = VendorText.code(body?["result"]) ?? "HTTP \(response.status)"
            guard code == "0", let body else { return .refused(failure(code, status: response.status)) }
            return .accepted(body)
        }
    }

    static func single(_ result: Result<CurlResponse, CurlError>) -> [DeliveryOutcome] {
        switch answer(result) {
        case .accepted(let body): [.success(id: body["taskId"]?.stringValue ?? "")]
        case .refused(let outcome): [outcome]
        }
    }

    static func listed(_ result: Result<CurlResponse, CurlError>, tokens: [String]) -> [DeliveryOutcome] {
        switch answer(result) {
        case .refused(let outcome): return .all(outcome, tokens.count)
        case .accepted(let body):
            let invalid = Set((body["invalidUsers"]?.arrayValue ?? []).compactMap { $0["userid"]?.stringValue })
            let id = body["taskId"]?.stringValue ?? ""
            return tokens.map {
                invalid.contains($0) ? VendorReason(.vivo, "invalidUsers", .invalidToken).outcome : .success(id: id)
            }
        }
    }

    var httpStatistics: TransportStatistics { TransportStatistics(http.client.statistics) }
    func shutdown() async { await http.shutdown() }
}
