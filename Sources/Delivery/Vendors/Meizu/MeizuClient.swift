import Crypto
import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore

/// Meizu Flyme Push (`vendor: mz`; docs/vendors.md): no token, every form signed with MD5 over its sorted
/// fields and the app secret; up to 1,000 pushIds a request, the failed ones grouped by code in the answer.
final class MeizuClient: VendorClient {
    let vendor = AndroidVendor.mz
    let batchLimit = 1000
    static let requiredKeys = ["app_id", "app_secret"]
    static let productionEndpoint = "https://server-api-push.meizu.com"
    static let invalidCodes: Set<String> = ["110002", "110003"]
    static let retryCodes: Set<String> = ["110010", "1003", "519"]

    private let sendURL: String
    private let appId: String
    private let secret: String
    private let http: VendorHTTP

    init(settings: VendorSettings, logger: Logger?) throws(DeliverySetupError) {
        appId = settings["app_id"]!
        secret = settings["app_secret"]!
        sendURL = (settings["endpoint"] ?? Self.productionEndpoint) + "/garcia/api/server/push/varnished/pushByPushId"
        http = try VendorHTTP(caFile: settings["ca_file"], logger: logger)
    }

    func accepts(token: String) -> Bool { VendorToken.fitsCommaList(token) }

    func message(for content: VendorContent, timeToLive: Int64?) -> Result<VendorMessage, VendorRefusal> {
        // Meizu restricts pass-through messages (code 110053): a silent push is refused, never shown instead.
        guard !content.silent else { return .failure(.passThroughUnsupported) }
        if let refusal = VendorText.checkLengths(content, title: 32, body: 100, vendor: vendor) {
            return .failure(refusal)
        }
        var time: [String: JSON] = ["offLine": 1]
        time["validTime"] = .int(timeToLive.map { min(max(($0 + 3599) / 3600, 1), 72) } ?? 24)
        let message: JSON = [
            "noticeBarInfo": [
                "noticeBarType": content.options["noticeBarType"] ?? 0, "title": .string(content.title ?? ""),
                "content": .string(content.body ?? ""),
            ],
            "clickTypeInfo": ["clickType": 0, "parameters": ["content": .string(content.text)]],
            "pushTimeInfo": .object(time),
        ]
        return .success(VendorMessage(body: message, silent: false))
    }

    /// `sign`: MD5 of the fields sorted by name as `k=v` with nothing between, then the app secret.
    static func sign(_ fields: [(name: String, value: String)], secret: String) -> String {
        let text = fields.sorted { $0.name < $1.name }.map { "\($0.name)=\($0.value)" }.joined() + secret
        return VendorText.hex(Insecure.MD5.hash(data: Array(text.utf8)))
    }

    func attempt(_ message: VendorMessage, to tokens: [String]) async -> [DeliveryOutcome] {
        var form: [(name: String, value: String)] = [
            ("appId", appId), ("pushIds", tokens.joined(separator: ",")), ("messageJson", message.body.encoded()),
        ]
        form.append(("sign", Self.sign(form, secret: secret)))
        return Self.outcomes(await http.postForm(sendURL, form), tokens: tokens)
    }

    static func outcomes(_ answer: Result<CurlResponse, CurlError>, tokens: [String]) -> [DeliveryOutcome] {
        let reply = VendorReply(answer, vendor: .mz, devices: tokens.count)
        guard let response = reply.response else { return reply.unanswered }
        let body = reply.body, code = reply.code
        if response.status >= 500 || retryCodes.contains(code) {
            return .all(VendorReason(.mz, code, .retry).outcome, tokens.count)
        }
        guard code == "200" else { return .all(VendorReason(.mz, code, .permanent).outcome, tokens.count) }
        var failed: [String: String] = [:]
        for (failure, ids) in body?["value"]?.objectValue ?? [:] {
            for id in ids.arrayValue ?? [] { if let id = id.stringValue { failed[id] = failure } }
        }
        let id = body?["msgId"]?.stringValue ?? ""
        return tokens.map { token in
            guard let failure = failed[token] else { return .success(id: id) }
            let kind: VendorReason.Kind =
                invalidCodes.contains(failure) ? .invalidToken : retryCodes.contains(failure) ? .retry : .permanent
            return VendorReason(.mz, failure, kind).outcome
        }
    }

    var httpStatistics: TransportStatistics { TransportStatistics(http.client.statistics) }
    func shutdown() async { await http.shutdown() }
}
