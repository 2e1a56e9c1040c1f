import Foundation
import PushCore

/// The Meizu Flyme Push look-alike: `POST /mz/garcia/api/server/push/varnished/pushByPushId` (notifications) and
/// `…/unvarnished/pushByPushId` (pass-through), each form signed on its own.
extension SimulatorEngine {
    func handleMeizu(_ request: SimulatorRequest, path: Substring) -> SimulatorResponse {
        let isPassThrough = path == MeizuRoute.passThroughPath
        guard request.method == "POST", isPassThrough || path == MeizuRoute.notificationPath else {
            return Self.vendorNotFound
        }
        let form = request.formFields
        let tokens = CommaSeparatedIDs.split(form["pushIds"])
        let refusal: VendorAnswer?
        if let appID = form["appId"], !appID.isEmpty {
            if appID != MeizuRoute.appID {
                refusal = Self.meizuError(MeizuRoute.badAppID, "appId不合法")
            } else if form["sign"] != MeizuRoute.signature(of: form, secret: MeizuRoute.appSecret) {
                refusal = Self.meizuError(MeizuRoute.badSignature, "签名认证失败")
            } else if let problem = Self.meizuProblem(form, tokens: tokens, isPassThrough: isPassThrough) {
                refusal = Self.meizuError(MeizuRoute.badParameters, "参数错误: \(problem)")
            } else {
                refusal = nil
            }
        } else {
            refusal = Self.meizuError(MeizuRoute.badParameters, "参数错误: appId is required")
        }
        return self.vendorSend(.mz, request, tokens: tokens, isForm: true, refusal: refusal) { injection, number in
            Self.meizuAnswer(injection, tokens: tokens, messageID: Self.vendorMessageID("NS", number))
        }
    }

    private static func meizuProblem(_ form: [String: String], tokens: [String], isPassThrough: Bool) -> String? {
        guard (1...MeizuRoute.maxPushIDs).contains(tokens.count) else {
            return "pushIds must list 1 to \(MeizuRoute.maxPushIDs) ids"
        }
        guard let message = form["messageJson"].flatMap({ try? JSON.parse($0) }), message.isObject else {
            return "messageJson must be a JSON object"
        }
        if let hours = message["pushTimeInfo"]?["validTime"], !MeizuRoute.validHours.contains(hours.integerValue ?? 0) {
            return "pushTimeInfo.validTime must be 1 to 72 hours"
        }
        let fields = isPassThrough ? message : message["noticeBarInfo"]
        let contentLimit = isPassThrough ? MeizuRoute.maxPassThroughContentCharacters : MeizuRoute.maxContentCharacters
        guard let fields, fields.isObject, fields["content"]?.stringValue != nil,
            isPassThrough || fields["title"]?.stringValue != nil
        else { return isPassThrough ? "content is required" : "noticeBarInfo needs a title and a content" }
        guard Self.fits(fields["title"], MeizuRoute.maxTitleCharacters) else {
            return "title is longer than \(MeizuRoute.maxTitleCharacters) characters"
        }
        guard Self.fits(fields["content"], contentLimit) else {
            return "content is longer than \(contentLimit) characters"
        }
        return nil
    }

    /// `value` lists only the ids that failed, grouped by code; the request itself succeeds.
    private static func meizuAnswer(_ injection: VendorInjection, tokens: [String], messageID: String) -> VendorAnswer {
        if injection.retry {
            return Self.meizuError(MeizuRoute.rateTooHigh, "应用请求频率过快")
        }
        var failed: [String: [JSON]] = [:]
        let reasons = injection.devices.map { signal in
            signal.map { $0 == .invalid ? MeizuRoute.invalidPushID : MeizuRoute.pushFailed }
        }
        for (token, reason) in zip(tokens, reasons) {
            if let reason { failed[reason, default: []].append(.string(token)) }
        }
        return .devices(
            .members([
                ("code", .string(MeizuRoute.success)), ("message", .string("")),
                ("value", .object(failed.mapValues(JSON.array))), ("redirect", .string("")),
                ("msgId", .string(messageID)),
            ]),
            reasons: reasons)
    }

    private static func meizuError(_ code: String, _ message: String) -> VendorAnswer {
        .refused(
            code: code,
            .members([
                ("code", .string(code)), ("message", .string(message)), ("value", .object([:])),
                ("redirect", .string("")),
            ]))
    }
}
