import Foundation
import PushCore

/// The Huawei Push Kit look-alike: `POST /hms/oauth2/v3/token`, `POST /hms/v1/<app id>/messages:send`.
extension SimulatorEngine {
    func handleHMS(_ request: SimulatorRequest, path: Substring) -> SimulatorResponse {
        if path == HMSRoute.tokenPath {
            return self.handleClientCredentials(request, vendor: .hms)
        }
        guard request.method == "POST",
            let appID = VendorRoute.segment(of: path, between: HMSRoute.sendPrefix, and: HMSRoute.sendSuffix)
        else { return Self.vendorNotFound }
        let message = request.jsonBody?["message"]
        let tokens = message?["token"]?.strings ?? []
        let refusal: VendorAnswer?
        if !self.vendorTokenIsValid(Self.bearerToken(request.header("authorization")), in: .hms) {
            refusal = .refused(
                401, code: HMSRoute.tokenExpired, Self.hmsBody(HMSRoute.tokenExpired, "Oauth Token expired."))
        } else if appID != HMSRoute.appID {
            // The token was issued to the simulator's only app; any other app id in the path is not its own.
            refusal = .refused(
                401, code: HMSRoute.authenticationError,
                Self.hmsBody(HMSRoute.authenticationError, "Oauth authentication error"))
        } else if let problem = Self.hmsProblem(message) {
            refusal = .refused(code: problem.code, Self.hmsBody(problem.code, problem.message))
        } else {
            refusal = nil
        }
        return self.vendorSend(.hms, request, tokens: tokens, isForm: false, refusal: refusal) { injection, number in
            Self.hmsAnswer(injection, tokens: tokens, requestID: Self.vendorMessageID("", number))
        }
    }

    private static func hmsProblem(_ message: JSON?) -> (code: String, message: String)? {
        guard let message else { return (HMSRoute.badParameters, "message is required") }
        return HuaweiMessageCheck.hms.problem(in: message)
    }

    /// HMS answers with HTTP 200 and a code, except auth errors (401) and flow control (503).
    private static func hmsAnswer(_ injection: VendorInjection, tokens: [String], requestID: String) -> VendorAnswer {
        if injection.retry {
            return .refused(
                503, code: HMSRoute.unavailable,
                Self.hmsBody(HMSRoute.internalError, "Service unavailable, retry later", requestID: requestID))
        }
        // An `error-` device is reported like an invalid one unless every device is one, which fails the request.
        if injection.devices.allSatisfy({ $0 == .error }) {
            return .refused(
                code: HMSRoute.badParameters,
                Self.hmsBody(HMSRoute.badParameters, "Some request parameters are incorrect", requestID: requestID))
        }
        let undelivered = injection.undelivered
        if undelivered.isEmpty {
            return .devices(
                Self.hmsBody(HMSRoute.success, "Success", requestID: requestID), reasons: tokens.map { _ in nil })
        }
        if undelivered.count == tokens.count {
            return .devices(
                Self.hmsBody(HMSRoute.allTokensInvalid, "All the tokens are invalid", requestID: requestID),
                reasons: tokens.map { _ in HMSRoute.allTokensInvalid })
        }
        // The partial answer's `msg` is itself JSON text, as HMS sends it.
        let summary: JSON = .members([
            ("success", .integer(tokens.count - undelivered.count)),
            ("failure", .integer(undelivered.count)),
            ("illegal_tokens", .array(undelivered.map { .string(tokens[$0]) })),
        ])
        return .devices(
            Self.hmsBody(HMSRoute.partialSuccess, summary.encoded(), requestID: requestID),
            reasons: injection.devices.map { $0 == nil ? nil : "illegal_tokens" })
    }

    private static func hmsBody(_ code: String, _ message: String, requestID: String? = nil) -> JSON {
        var members: [(key: String, value: JSON)] = [("code", .string(code)), ("msg", .string(message))]
        if let requestID { members.append(("requestId", .string(requestID))) }
        return .members(members)
    }
}
