import Foundation
import PushCore

/// The OPPO Push look-alike: `POST /oppo/server/v1/auth` and `POST /oppo/server/v1/message/notification/
/// unicast_batch`, the same under `/oppo-global` with tokens of its own.
extension SimulatorEngine {
    func handleOPPO(_ request: SimulatorRequest, route: VendorRoute) -> SimulatorResponse {
        let realm: VendorTokenRealm = route.isGlobal ? .oppoGlobal : .oppo
        guard request.method == "POST" else { return Self.vendorNotFound }
        if route.path == OPPORoute.authPath {
            return self.handleOPPOAuth(request, realm: realm)
        }
        guard route.path == OPPORoute.unicastBatchPath else { return Self.vendorNotFound }
        let form = request.formFields
        let messages = form["messages"].flatMap { try? JSON.parse($0) }?.arrayValue
        let tokens = messages?.compactMap { $0["target_value"]?.stringValue } ?? []
        let refusal: VendorAnswer?
        // OPPO takes the token as a form field or a header.
        if !self.vendorTokenIsValid((form["auth_token"] ?? request.header("auth_token"))?[...], in: realm) {
            refusal = Self.oppoError(OPPORoute.invalidAuthToken, "Invalid AuthToken")
        } else if let problem = Self.oppoProblem(messages) {
            refusal = Self.oppoError(OPPORoute.badParameters, "Invalid parameter: \(problem)")
        } else {
            refusal = nil
        }
        return self.vendorSend(.oppo, request, tokens: tokens, isForm: true, refusal: refusal) { injection, number in
            Self.oppoAnswer(injection, tokens: tokens, messageNumber: number)
        }
    }

    /// `app_key`, `timestamp` (ms, within 10 minutes) and `sign` = sha256 hex of app key + timestamp + master secret.
    private func handleOPPOAuth(_ request: SimulatorRequest, realm: VendorTokenRealm) -> SimulatorResponse {
        let form = request.formFields
        let refusal: (code: Int, message: String)?
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        if let appKey = form["app_key"], let text = form["timestamp"], let timestamp = Int64(text),
            let sign = form["sign"]
        {
            let expected = VendorDigests.sha256(OPPORoute.appKey + text + OPPORoute.masterSecret)
            let isFresh = abs(now - timestamp) <= OPPORoute.timestampToleranceMilliseconds
            refusal =
                appKey == OPPORoute.appKey && sign == expected && isFresh
                ? nil : (OPPORoute.invalidSign, "Invalid sign")
        } else {
            refusal = (OPPORoute.badParameters, "Invalid parameter: app_key, timestamp and sign are required")
        }
        self.state.withLock { $0.countVendorAuth(.oppo, rejection: refusal.map { String($0.code) }) }
        if let refusal {
            return Self.oppoError(refusal.code, refusal.message).response
        }
        let (token, _) = self.issueVendorToken(in: realm)
        let data: JSON = .members([("auth_token", .string(token)), ("create_time", .int(now))])
        return .json(200, .members([("code", .integer(0)), ("message", .string("Success")), ("data", data)]))
    }

    /// What OPPO checks of `messages`, nil when every message is a valid notification to a registration id.
    private static func oppoProblem(_ messages: [JSON]?) -> String? {
        guard let messages, (1...OPPORoute.maxMessages).contains(messages.count) else {
            return "messages must be a JSON array of 1 to \(OPPORoute.maxMessages) messages"
        }
        for message in messages {
            guard message["target_type"]?.integerValue == OPPORoute.registrationIDTarget,
                !(message["target_value"]?.stringValue ?? "").isEmpty
            else { return "every message needs target_type 2 and a target_value" }
            guard let notification = message["notification"], notification.isObject,
                notification["title"]?.stringValue != nil, notification["content"]?.stringValue != nil
            else { return "every message needs a notification with a title and a content" }
            guard Self.fits(notification["title"], OPPORoute.maxTitleCharacters) else {
                return "title is longer than \(OPPORoute.maxTitleCharacters) characters"
            }
            guard Self.fits(notification["content"], OPPORoute.maxContentCharacters) else {
                return "content is longer than \(OPPORoute.maxContentCharacters) characters"
            }
        }
        return nil
    }

    private static func oppoAnswer(_ injection: VendorInjection, tokens: [String], messageNumber: Int) -> VendorAnswer {
        if injection.retry {
            return Self.oppoError(OPPORoute.serviceBusy, "Service busy, try again later")
        }
        if injection.quota {
            return Self.oppoError(OPPORoute.dailyQuota, "The number of messages exceeds the daily limit")
        }
        let base = Self.vendorMessageID("", messageNumber)
        let results: [JSON] = zip(tokens, injection.devices).enumerated().map { index, device in
            let (token, signal) = device
            switch signal {
            case .invalid?:
                return Self.oppoItemError(OPPORoute.invalidRegistrationID, "Invalid registration_id", token)
            case .some:
                return Self.oppoItemError(OPPORoute.pushFailed, "Push failed", token)
            case nil:
                return .members([("messageId", .string("\(base)-\(index)")), ("registrationId", .string(token))])
            }
        }
        return .devices(
            .members([("code", .integer(0)), ("message", .string("Success")), ("data", .array(results))]),
            reasons: injection.devices.map { signal in
                signal.map { String($0 == .invalid ? OPPORoute.invalidRegistrationID : OPPORoute.pushFailed) }
            })
    }

    private static func oppoItemError(_ code: Int, _ message: String, _ token: String) -> JSON {
        .members([
            ("errorCode", .integer(code)), ("errorMessage", .string(message)), ("registrationId", .string(token)),
        ])
    }

    private static func oppoError(_ code: Int, _ message: String) -> VendorAnswer {
        .refused(code: String(code), .members([("code", .integer(code)), ("message", .string(message))]))
    }
}
