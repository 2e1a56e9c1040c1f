import Foundation
import PushCore

/// The Xiaomi MiPush look-alike: `POST /mi/v3/message/regid` (and `/mi-global/…`), authenticated by
/// `Authorization: key=<app secret>` on every request.
extension SimulatorEngine {
    func handleXiaomi(_ request: SimulatorRequest, path: Substring) -> SimulatorResponse {
        guard request.method == "POST", path == XiaomiRoute.sendPath else { return Self.vendorNotFound }
        let form = request.formFields
        let tokens = CommaSeparatedIDs.split(form["registration_id"])
        let refusal: VendorAnswer?
        if request.header("authorization") != "key=" + XiaomiRoute.appSecret {
            refusal = Self.xiaomiError(XiaomiRoute.authenticationFailed, "认证失败", reason: "Invalid app secret")
        } else if let problem = Self.xiaomiProblem(form, tokens: tokens) {
            refusal = Self.xiaomiError(XiaomiRoute.badParameters, "参数不合法", reason: problem)
        } else {
            refusal = nil
        }
        return self.vendorSend(.mi, request, tokens: tokens, isForm: true, refusal: refusal) { injection, number in
            Self.xiaomiAnswer(injection, tokens: tokens, messageID: Self.vendorMessageID("scm", number))
        }
    }

    /// What Xiaomi checks of the form, nil when it is a valid message.
    private static func xiaomiProblem(_ form: [String: String], tokens: [String]) -> String? {
        guard (1...XiaomiRoute.maxRegistrationIDs).contains(tokens.count) else {
            return "registration_id must list 1 to \(XiaomiRoute.maxRegistrationIDs) ids"
        }
        guard form["restricted_package_name"] == XiaomiRoute.packageName else {
            return "restricted_package_name is not the app's package"
        }
        let passThrough = form["pass_through"] ?? "0"
        guard passThrough == "0" || passThrough == "1" else { return "pass_through must be 0 or 1" }
        if let ttl = form["time_to_live"], Int(ttl).map({ $0 > 0 }) != true {
            return "time_to_live must be a positive number of milliseconds"
        }
        if passThrough == "1" {
            return (form["payload"] ?? "").isEmpty ? "a pass-through message needs a payload" : nil
        }
        guard let title = form["title"], let description = form["description"] else {
            return "a notification needs a title and a description"
        }
        guard title.count <= XiaomiRoute.maxTitleCharacters else {
            return "title is longer than \(XiaomiRoute.maxTitleCharacters) characters"
        }
        guard description.count <= XiaomiRoute.maxDescriptionCharacters else {
            return "description is longer than \(XiaomiRoute.maxDescriptionCharacters) characters"
        }
        return nil
    }

    private static func xiaomiAnswer(_ injection: VendorInjection, tokens: [String], messageID: String) -> VendorAnswer
    {
        if injection.retry {
            return Self.xiaomiError(XiaomiRoute.unavailable, "系统繁忙，请稍后重试", reason: "service busy")
        }
        if injection.quota {
            return Self.xiaomiError(XiaomiRoute.dailyQuota, "超过当日推送限额", reason: "daily quota exceeded")
        }
        // Xiaomi's only per-device signal is `bad_regids`; a permanent error is one for the whole request.
        if injection.hasError {
            return Self.xiaomiError(XiaomiRoute.badParameters, "参数不合法", reason: "push failed for a regid")
        }
        let bad = injection.undelivered.map { tokens[$0] }
        var data: [(key: String, value: JSON)] = [("id", .string(messageID))]
        // Xiaomi leaves the field out when every id is good.
        if !bad.isEmpty { data.append(("bad_regids", .string(bad.joined(separator: ",")))) }
        let body: JSON = .members([
            ("result", .string("ok")),
            ("code", .integer(0)),
            ("description", .string("成功")),
            ("info", .string("Received push messages for \(tokens.count) REGID")),
            ("trace_id", .string(messageID)),
            ("data", .members(data)),
        ])
        return .devices(body, reasons: injection.devices.map { $0 == nil ? nil : "bad_regids" })
    }

    private static func xiaomiError(_ code: Int, _ description: String, reason: String) -> VendorAnswer {
        .refused(
            code: String(code),
            .members([
                ("result", .string("error")),
                ("code", .integer(code)),
                ("description", .string(description)),
                ("reason", .string(reason)),
            ]))
    }
}
