import Curl
import Foundation
import HTTPTypes
import Logging
import PushCore

/// Xiaomi MiPush (`vendor: mi`, `mi-intl`; docs/vendors.md): the app secret in every request's
/// `Authorization: key=…`, a form body with a comma-separated list of regids, the bad ones named in the answer.
final class XiaomiClient: VendorClient {
    let vendor: AndroidVendor
    let batchLimit = 1000
    static let requiredKeys = ["app_secret", "package_name"]
    static let productionEndpoint = "https://api.xmpush.xiaomi.com"
    static let productionGlobalEndpoint = "https://api.xmpush.global.xiaomi.com"
    /// Xiaomi keeps a message at most two weeks (`time_to_live` is in milliseconds).
    static let maxTimeToLive: Int64 = 1_209_600
    static let retryCodes: Set<String> = ["10002", "10003", "10027", "10037"]

    private let sendURL: String
    private let secret: String
    private let packageName: String
    private let channelId: String?
    private let http: VendorHTTP

    /// - Parameter vendor: `mi` or `mi-intl`, whose requests go to `mi.global_endpoint`.
    init(vendor: AndroidVendor, settings: VendorSettings, logger: Logger?) throws(DeliverySetupError) {
        self.vendor = vendor
        secret = settings["app_secret"]!
        packageName = settings["package_name"]!
        channelId = settings["channel_id"]
        let base =
            vendor == .miIntl
            ? settings["global_endpoint"] ?? Self.productionGlobalEndpoint
            : settings["endpoint"] ?? Self.productionEndpoint
        sendURL = base + "/v3/message/regid"
        http = try VendorHTTP(caFile: settings["ca_file"], logger: logger)
    }

    func accepts(token: String) -> Bool { VendorToken.fitsCommaList(token) }

    func message(for content: VendorContent, timeToLive: Int64?) -> Result<VendorMessage, VendorRefusal> {
        if let refusal = VendorText.checkLengths(content, title: 50, body: 128, vendor: vendor) {
            return .failure(refusal)
        }
        var form: [String: JSON] = [
            "restricted_package_name": .string(packageName), "payload": .string(content.text),
            "pass_through": .string(content.silent ? "1" : "0"),
            "notify_type": .string(content.options["notify_type"].map { $0.stringValue ?? $0.encoded() } ?? "-1"),
        ]
        if let title = content.title { form["title"] = .string(title) }
        if let body = content.body { form["description"] = .string(body) }
        if let id = content.options["notify_id"] { form["notify_id"] = .string(id.stringValue ?? id.encoded()) }
        if let timeToLive { form["time_to_live"] = .string(String(min(max(timeToLive, 1), Self.maxTimeToLive) * 1000)) }
        if !content.silent { form["extra.notify_effect"] = "1" }
        if let channel = content.notificationChannel ?? content.options["channel_id"]?.stringValue ?? channelId {
            form["extra.channel_id"] = .string(channel)
        }
        for (key, value) in content.options["extra"]?.objectValue ?? [:] {
            form["extra." + key] = .string(value.stringValue ?? value.encoded())
        }
        return .success(VendorMessage(body: .object(form), silent: content.silent))
    }

    func attempt(_ message: VendorMessage, to tokens: [String]) async -> [DeliveryOutcome] {
        var form = (message.body.objectValue ?? [:]).sorted { $0.key < $1.key }.map {
            (name: $0.key, value: $0.value.stringValue ?? "")
        }
        form.append((name: "registration_id", value: tokens.joined(separator: ",")))
        let answer = await http.postForm(sendURL, form, headers: [.authorization: "key=" + secret])
        return Self.outcomes(answer, tokens: tokens, vendor: vendor)
    }

    static func outcomes(
        _ answer: Result<CurlResponse, CurlError>, tokens: [String], vendor: AndroidVendor
    ) -> [DeliveryOutcome] {
        let reply = VendorReply(answer, vendor: vendor, devices: tokens.count)
        guard let response = reply.response else { return reply.unanswered }
        let body = reply.body, code = reply.code
        if response.status >= 500 || retryCodes.contains(code) { return reply.all(.retry) }
        if code == "200001" { return reply.all(.quota) }
        guard code == "0" else { return reply.all(.permanent) }
        let bad = Set((body?["data"]?["bad_regids"]?.stringValue ?? "").split(separator: ",").map(String.init))
        let id = body?["data"]?["id"]?.stringValue ?? ""
        return tokens.map {
            bad.contains($0) ? VendorReason(vendor, "bad_regids", .invalidToken).outcome : .success(id: id)
        }
    }

    var httpStatistics: TransportStatistics { TransportStatistics(http.client.statistics) }
    func shutdown() async { await http.shutdown() }
}
