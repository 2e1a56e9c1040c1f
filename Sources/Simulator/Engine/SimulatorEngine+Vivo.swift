import Foundation
import PushCore

/// The vivo Push look-alike: `POST /vivo/message/auth`, `/message/send` for one device, and `/message/
/// saveListPayload` then `/message/pushToList` for several.
extension SimulatorEngine {
    func handleVivo(_ request: SimulatorRequest, path: Substring) -> SimulatorResponse {
        guard request.method == "POST" else { return Self.vendorNotFound }
        let document = request.jsonBody
        switch String(path) {
        case VivoRoute.authPath:
            return self.handleVivoAuth(document)
        case VivoRoute.sendPath:
            let token = document?["regId"]?.stringValue
            let refusal =
                self.vivoAuthRefusal(request)
                ?? Self.vivoMessageProblem(document, needsRegistrationID: true).map(Self.vivoBadParameters)
            return self.vendorSend(.vivo, request, tokens: token.map { [$0] } ?? [], isForm: false, refusal: refusal) {
                injection, number in
                Self.vivoSendAnswer(injection, token: token ?? "", taskID: Self.vendorMessageID("", number))
            }
        case VivoRoute.saveListPayloadPath:
            if let refusal = self.vivoAuthRefusal(request)
                ?? Self.vivoMessageProblem(document, needsRegistrationID: false).map(Self.vivoBadParameters)
            {
                return refusal.response
            }
            let taskID = Self.vendorMessageID("", self.state.withLock { $0.nextMessageNumber() })
            self.vivoTasks.withLock { $0.insert(taskID) }
            return .json(200, Self.vivoBody(VivoRoute.success, "请求成功", [("taskId", .string(taskID))]))
        case VivoRoute.pushToListPath:
            let tokens = document?["regIds"]?.strings ?? []
            let refusal = self.vivoAuthRefusal(request) ?? self.vivoListProblem(document).map(Self.vivoBadParameters)
            return self.vendorSend(.vivo, request, tokens: tokens, isForm: false, refusal: refusal) { injection, _ in
                Self.vivoListAnswer(injection, tokens: tokens, taskID: document?["taskId"]?.stringValue ?? "")
            }
        default:
            return Self.vendorNotFound
        }
    }

    /// `{"appId","appKey","timestamp","sign"}` with sign = lowercase md5 of appId + appKey + timestamp + appSecret.
    private func handleVivoAuth(_ document: JSON?) -> SimulatorResponse {
        let refusal: (code: Int, description: String)?
        // vivo's appId is a number; a numeric string is read the same way, as lenient clients send one.
        let appID = document?["appId"].flatMap { $0.integerValue ?? $0.stringValue.flatMap { Int($0) } }
        let timestamp = document?["timestamp"].flatMap { $0.intValue ?? $0.stringValue.flatMap { Int64($0) } }
        if let appID, let timestamp, let appKey = document?["appKey"]?.stringValue,
            let sign = document?["sign"]?.stringValue
        {
            let expected = VendorDigests.md5("\(appID)\(appKey)\(timestamp)\(VivoRoute.appSecret)")
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let isFresh = abs(now - timestamp) <= VivoRoute.timestampToleranceMilliseconds
            let matches = appID == VivoRoute.appID && appKey == VivoRoute.appKey && sign == expected
            refusal = matches && isFresh ? nil : (VivoRoute.badSign, "签名不正确")
        } else {
            refusal = (VivoRoute.badParameters, "appId, appKey, timestamp and sign are required")
        }
        self.state.withLock { $0.countVendorAuth(.vivo, rejection: refusal.map { String($0.code) }) }
        if let refusal {
            return .json(200, Self.vivoBody(refusal.code, refusal.description))
        }
        let (token, _) = self.issueVendorToken(in: .vivo)
        return .json(200, Self.vivoBody(VivoRoute.success, "请求成功", [("authToken", .string(token))]))
    }

    private func vivoAuthRefusal(_ request: SimulatorRequest) -> VendorAnswer? {
        guard !self.vendorTokenIsValid(request.header("authtoken")?[...], in: .vivo) else { return nil }
        return .refused(
            code: String(VivoRoute.authTokenInvalid), Self.vivoBody(VivoRoute.authTokenInvalid, "权限认证失败"))
    }

    /// The checks of a message for `/message/send` and `saveListPayload`, nil when it is valid.
    private static func vivoMessageProblem(_ document: JSON?, needsRegistrationID: Bool) -> (Int, String)? {
        guard let document, document.isObject else { return (VivoRoute.badParameters, "the body must be JSON") }
        if let problem = Self.vivoAppIDProblem(document) { return problem }
        if needsRegistrationID, (document["regId"]?.stringValue ?? "").isEmpty {
            return (VivoRoute.badParameters, "regId is required")
        }
        guard let notifyType = document["notifyType"]?.integerValue, (1...4).contains(notifyType) else {
            return (VivoRoute.badParameters, "notifyType must be 1 to 4")
        }
        guard let skipType = document["skipType"]?.integerValue, (1...4).contains(skipType) else {
            return (VivoRoute.badParameters, "skipType must be 1 to 4")
        }
        guard let title = document["title"]?.stringValue, let content = document["content"]?.stringValue else {
            return (VivoRoute.badParameters, "title and content are required")
        }
        guard title.count <= VivoRoute.maxTitleCharacters else {
            return (VivoRoute.badParameters, "title is longer than \(VivoRoute.maxTitleCharacters) characters")
        }
        guard content.count <= VivoRoute.maxContentCharacters else {
            return (VivoRoute.badParameters, "content is longer than \(VivoRoute.maxContentCharacters) characters")
        }
        if let ttl = document["timeToLive"], ttl.integerValue.map({ $0 > 0 }) != true {
            return (VivoRoute.badParameters, "timeToLive must be a positive number of seconds")
        }
        if let map = document["clientCustomMap"], map.objectValue?.values.allSatisfy({ $0.stringValue != nil }) != true
        {
            return (VivoRoute.badParameters, "clientCustomMap must map names to strings")
        }
        return Self.vivoRequestIDProblem(document)
    }

    private func vivoListProblem(_ document: JSON?) -> (Int, String)? {
        guard let document, document.isObject else { return (VivoRoute.badParameters, "the body must be JSON") }
        if let problem = Self.vivoAppIDProblem(document) { return problem }
        guard let ids = document["regIds"]?.arrayValue, VivoRoute.listSizes.contains(ids.count),
            ids.allSatisfy({ !($0.stringValue ?? "").isEmpty })
        else { return (VivoRoute.badParameters, "regIds must list 2 to 1000 regIds") }
        guard let taskID = document["taskId"]?.stringValue, self.vivoTasks.withLock({ $0.contains(taskID) }) else {
            return (VivoRoute.badParameters, "taskId is not one saveListPayload issued")
        }
        return Self.vivoRequestIDProblem(document)
    }

    /// Since API 2.9.2 the body names the app, and another app's id is refused with its own code.
    private static func vivoAppIDProblem(_ document: JSON) -> (Int, String)? {
        guard let value = document["appId"] else { return nil }
        let appID = value.integerValue ?? value.stringValue.flatMap { Int($0) }
        return appID == VivoRoute.appID ? nil : (VivoRoute.appIDMismatch, "appId does not match the auth token")
    }

    private static func vivoRequestIDProblem(_ document: JSON) -> (Int, String)? {
        (document["requestId"]?.stringValue ?? "").isEmpty ? (VivoRoute.badParameters, "requestId is required") : nil
    }

    private static func vivoSendAnswer(_ injection: VendorInjection, token: String, taskID: String) -> VendorAnswer {
        if let whole = Self.vivoWholeRequestAnswer(injection) { return whole }
        switch injection.devices.first ?? nil {
        case .invalid?:
            let user: JSON = .members([("status", .integer(1)), ("userid", .string(token))])
            return .devices(
                Self.vivoBody(VivoRoute.invalidRegistrationID, "regId不合法", [("invalidUser", user)]),
                reasons: [String(VivoRoute.invalidRegistrationID)])
        case .some:
            return .devices(Self.vivoBody(VivoRoute.pushFailed, "推送失败"), reasons: [String(VivoRoute.pushFailed)])
        case nil:
            return .devices(Self.vivoBody(VivoRoute.success, "请求成功", [("taskId", .string(taskID))]), reasons: [nil])
        }
    }

    private static func vivoListAnswer(_ injection: VendorInjection, tokens: [String], taskID: String) -> VendorAnswer {
        if let whole = Self.vivoWholeRequestAnswer(injection) { return whole }
        // A list push has only `invalidUsers` per device, so a permanent error is one for the whole request.
        if injection.hasError {
            return .refused(code: String(VivoRoute.pushFailed), Self.vivoBody(VivoRoute.pushFailed, "推送失败"))
        }
        let invalid: [JSON] = injection.undelivered.map {
            .members([("status", .integer(1)), ("userid", .string(tokens[$0]))])
        }
        return .devices(
            Self.vivoBody(
                VivoRoute.success, "请求成功", [("taskId", .string(taskID)), ("invalidUsers", .array(invalid))]),
            reasons: injection.devices.map { $0 == nil ? nil : VivoRoute.invalidUsers })
    }

    private static func vivoWholeRequestAnswer(_ injection: VendorInjection) -> VendorAnswer? {
        if injection.retry {
            return .refused(code: String(VivoRoute.unavailable), Self.vivoBody(VivoRoute.unavailable, "服务不可用，请稍后重试"))
        }
        if injection.quota {
            return .refused(code: String(VivoRoute.dailyQuota), Self.vivoBody(VivoRoute.dailyQuota, "超过当日推送总量"))
        }
        return nil
    }

    private static func vivoBadParameters(_ problem: (Int, String)) -> VendorAnswer {
        .refused(code: String(problem.0), Self.vivoBody(problem.0, problem.1))
    }

    private static func vivoBody(
        _ result: Int, _ description: String, _ extra: [(key: String, value: JSON)] = []
    ) -> JSON {
        var members: [(key: String, value: JSON)] = [("result", .integer(result)), ("desc", .string(description))]
        members += extra
        return .members(members)
    }
}
