import Foundation
import PushCore

/// The Honor Push look-alike: `POST /honor/auth/token`, `POST /honor/api/v1/<app id>/sendMessage`.
extension SimulatorEngine {
    func handleHonor(_ request: SimulatorRequest, path: Substring) -> SimulatorResponse {
        if path == HonorRoute.tokenPath {
            return self.handleClientCredentials(request, vendor: .honor)
        }
        guard request.method == "POST",
            let appID = VendorRoute.segment(of: path, between: HonorRoute.sendPrefix, and: HonorRoute.sendSuffix)
        else { return Self.vendorNotFound }
        let document = request.jsonBody
        let tokens = document?["token"]?.strings ?? []
        let refusal: VendorAnswer?
        if !self.vendorTokenIsValid(Self.bearerToken(request.header("authorization")), in: .honor) {
            refusal = Self.honorRefusal(401, HMSRoute.tokenExpired, "access token expired")
        } else if appID != HonorRoute.appID {
            refusal = Self.honorRefusal(401, HMSRoute.authenticationError, "app id does not match the access token")
        } else if !Self.isMilliseconds(request.header("timestamp")) {
            refusal = Self.honorRefusal(200, HMSRoute.badParameters, "the timestamp header (milliseconds) is required")
        } else if let problem = Self.honorProblem(document) {
            refusal = Self.honorRefusal(200, problem.code, problem.message)
        } else {
            refusal = nil
        }
        return self.vendorSend(.honor, request, tokens: tokens, isForm: false, refusal: refusal) { injection, number in
            Self.honorAnswer(injection, tokens: tokens, requestID: Self.vendorMessageID("", number))
        }
    }

    private static func isMilliseconds(_ header: String?) -> Bool {
        guard let header, !header.isEmpty else { return false }
        return header.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    private static func honorProblem(_ document: JSON?) -> (code: String, message: String)? {
        guard let document else { return (HMSRoute.badParameters, "the body must be a JSON object") }
        return HuaweiMessageCheck.honor.problem(in: document)
    }

    private static func honorAnswer(_ injection: VendorInjection, tokens: [String], requestID: String) -> VendorAnswer {
        if injection.retry {
            return .refused(
                503, code: HonorRoute.unavailable,
                .members([("code", .integer(503)), ("message", .string("service unavailable, retry later"))]))
        }
        // Honor lists no per-device permanent error besides expired tokens, so `error-` fails the whole request.
        if injection.hasError {
            return Self.honorRefusal(200, HMSRoute.badParameters, "push failed for a token")
        }
        let expired = injection.undelivered.map { JSON.string(tokens[$0]) }
        let data: JSON = .members([
            // Honor reports a request it took as sent; which tokens were not is in the lists.
            ("sendResult", .bool(true)),
            ("requestId", .string(requestID)),
            ("failTokens", .array([])),
            ("expireTokens", .array(expired)),
        ])
        return .devices(
            .members([("code", .integer(HonorRoute.success)), ("message", .string("success")), ("data", data)]),
            reasons: injection.devices.map { $0 == nil ? nil : "expireTokens" })
    }

    /// Honor's codes are HMS's as JSON numbers.
    private static func honorRefusal(_ status: Int, _ code: String, _ message: String) -> VendorAnswer {
        .refused(
            status, code: code, .members([("code", .integer(Int(code) ?? 0)), ("message", .string(message))]))
    }
}
