import Foundation
import PushCore

/// What the Android vendor look-alikes share: routing by path prefix, token checks, and deciding, counting and
/// recording a send in one turn of the state lock.
extension SimulatorEngine {
    func handleVendor(_ request: SimulatorRequest, route: VendorRoute) -> SimulatorResponse {
        var response: SimulatorResponse
        switch route.vendor {
        case .hms: response = self.handleHMS(request, path: route.path)
        case .honor: response = self.handleHonor(request, path: route.path)
        case .mi: response = self.handleXiaomi(request, path: route.path)
        case .oppo: response = self.handleOPPO(request, route: route)
        case .vivo: response = self.handleVivo(request, path: route.path)
        case .mz: response = self.handleMeizu(request, path: route.path)
        case .apns, .fcm, .wns: response = Self.vendorNotFound
        }
        if route.isTokenExchange { return response }
        let latency = self.settings.withLock { $0.latency }
        self.state.withLock { $0.countVendorHTTPRequest(route.vendor) }
        response.delay = Self.delay(for: latency)
        return response
    }

    /// No vendor documents an answer for an unknown path; a plain 404 tells a misconfigured base URL apart from
    /// anything a vendor says.
    static var vendorNotFound: SimulatorResponse {
        .json(404, #"{"error":"not found"}"#)
    }

    /// Whether `token` is one the realm issued and is still valid.
    func vendorTokenIsValid(_ token: Substring?, in realm: VendorTokenRealm) -> Bool {
        guard let token, !token.isEmpty else { return false }
        return self.vendorTokens.withLock { $0.isValid(token, in: realm) }
    }

    /// The credentials of `authorization: Bearer <token>`, nil without that scheme.
    static func bearerToken(_ authorization: String?) -> Substring? {
        guard let authorization, BearerScheme.matches(authorization) else { return nil }
        return authorization.dropFirst(7).drop { $0 == " " }
    }

    func issueVendorToken(in realm: VendorTokenRealm) -> (token: String, lifetimeSeconds: Int) {
        let lifetime = self.settings.withLock { $0.vendorTokenLifetime(in: realm) }
        return (self.vendorTokens.withLock { $0.issue(in: realm, lifetimeSeconds: lifetime) }, lifetime)
    }

    /// Answers one send: `refusal` when the vendor's own checks failed, else whatever `answer` makes of the injection
    /// rules' verdict and the request's message number (for the vendor's message ids). Counted under the vendor and
    /// recorded under every id in `tokens`, in one turn of the state lock.
    func vendorSend(
        _ vendor: SimulatedProvider, _ request: SimulatorRequest, tokens: [String], isForm: Bool,
        refusal: VendorAnswer?, answer: (VendorInjection, _ messageNumber: Int) -> VendorAnswer
    ) -> SimulatorResponse {
        let settings = self.settings.withLock { $0 }
        let now = Date()
        let rules = refusal == nil ? tokens.map { settings.rule(for: vendor, token: $0[...]) } : []
        // One copy of the body, shared by the recordings of all the request's ids.
        let body = settings.recording.isEnabled ? request.bodyString : ""
        let result = self.state.withLock { state in
            let result: VendorAnswer
            if let refusal {
                result = refusal
            } else {
                let injection = state.vendorInjection(tokens: tokens, rules: rules, ratios: settings.failureRatios)
                result = answer(injection, state.nextMessageNumber())
            }
            state.countVendorSend(vendor, tokens: tokens, answer: result, recording: settings.recording) { reason in
                RecordedRequest(
                    provider: vendor, method: request.method, path: request.path, headers: request.headers,
                    body: body, status: result.status, reason: reason, receivedAt: now, isForm: isForm)
            }
            return result
        }
        return result.response
    }

    /// A message id unique within this simulator run, in the style `<prefix><time><number>`.
    static func vendorMessageID(_ prefix: String, _ number: Int) -> String {
        prefix + String(Int64(Date().timeIntervalSince1970 * 1000)) + String(number)
    }

    /// Lengths in characters, as the vendors state their limits; a missing value passes.
    static func fits(_ value: JSON?, _ limit: Int) -> Bool {
        guard let value else { return true }
        return (value.stringValue?.count ?? Int.max) <= limit
    }
}
