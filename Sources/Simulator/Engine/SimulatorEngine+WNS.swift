import Foundation
import NIOCore
import PushCore

extension SimulatorEngine {
    /// WNS access tokens live a day.
    static let wnsAccessTokenLifetime = 86_400

    /// `POST /accesstoken.srf`: the OAuth 2.0 client-credentials grant of a Windows app's package SID and secret.
    func handleWNSToken(_ request: SimulatorRequest) -> SimulatorResponse {
        let refusal = self.wnsRefusal(request)
        self.state.withLock { $0.wnsOAuth.count(rejection: refusal?.code) }
        if let refusal {
            return .json(
                400,
                .members([("error", .string(refusal.code)), ("error_description", .string(refusal.description))])
            )
        }
        let token = self.wnsAccessTokens.withLock {
            $0.issue(lifetime: .seconds(Int64(Self.wnsAccessTokenLifetime)))
        }
        return .json(
            200,
            .members([
                ("token_type", .string("bearer")),
                ("access_token", .string(token)),
                ("expires_in", .integer(Self.wnsAccessTokenLifetime)),
            ])
        )
    }

    private func wnsRefusal(_ request: SimulatorRequest) -> ServiceAccountAssertionVerifier.Refusal? {
        typealias Refusal = ServiceAccountAssertionVerifier.Refusal
        guard request.method == "POST" else {
            return Refusal(code: "invalid_request", description: "Token requests must use POST.")
        }
        let form = FormDecoding.decode(request.bodyString[...])
        guard form["grant_type"] == "client_credentials" else {
            return Refusal(code: "unsupported_grant_type", description: "grant_type must be client_credentials")
        }
        guard form["scope"] == WNSRoute.scope else {
            return Refusal(code: "invalid_scope", description: "scope must be \(WNSRoute.scope)")
        }
        guard let sid = form["client_id"], !sid.isEmpty, let secret = form["client_secret"], !secret.isEmpty else {
            return Refusal(code: "invalid_request", description: "client_id and client_secret are required")
        }
        // Without configured credentials any pair is accepted, as with service accounts.
        let known = self.wnsCredentials
        if !known.isEmpty, !known.contains(WNSCredentials(packageSid: sid, secret: secret)) {
            return Refusal(code: "invalid_client", description: "Invalid client id or secret")
        }
        return nil
    }

    /// `POST /wns/<channel id>`: a notification to one channel URI. Answers like WNS: a bare status with
    /// `X-WNS-Status`/`X-WNS-Msg-ID` on success and `X-WNS-Error-Description` otherwise.
    func handleWNS(_ request: SimulatorRequest, channel: Substring) -> SimulatorResponse {
        guard request.method == "POST", !channel.isEmpty, !channel.contains("/") else {
            return SimulatorResponse(status: 404, headers: [("x-wns-error-description", "ChannelNotFound")])
        }
        let settings = self.settings.withLock { $0 }
        let now = Date()
        let token = String(channel)
        let validation: ProviderRejection?
        if !self.hasValidWNSToken(request.header("authorization")) {
            validation = ProviderRejection(status: 401, reason: "Unauthorized")
        } else {
            validation = Self.validateNotification(request)
        }
        let (outcome, number) = self.outcome(
            .wns, request, token: token, validation: validation, settings: settings, now: now)
        var response: SimulatorResponse
        if let outcome {
            response = SimulatorResponse(
                status: outcome.status, headers: [("x-wns-error-description", outcome.reason)])
        } else {
            response = SimulatorResponse(
                status: 200,
                headers: [
                    ("x-wns-status", "received"), ("x-wns-deviceconnectionstatus", "connected"),
                    ("x-wns-msg-id", String(number, radix: 16, uppercase: true)),
                ])
        }
        response.delay = Self.delay(for: settings.latency)
        return response
    }

    private func hasValidWNSToken(_ authorization: String?) -> Bool {
        guard let authorization, BearerScheme.matches(authorization) else { return false }
        let token = authorization.dropFirst(7).drop { $0 == " " }
        return self.wnsAccessTokens.withLock { $0.isValid(token) }
    }

    /// The checks WNS makes before delivering: a known `X-WNS-Type`, the matching content type, a payload within
    /// 5 KB, and for the visual types one well-formed XML element of the type's name.
    static func validateNotification(_ request: SimulatorRequest) -> ProviderRejection? {
        let badRequest = ProviderRejection(status: 400, reason: "BadRequest")
        if request.bodyTooLarge || request.body.readableBytes > WNSRoute.maxPayloadBytes {
            return ProviderRejection(status: 413, reason: "PayloadTooLarge")
        }
        guard let type = request.header("x-wns-type") else { return badRequest }
        let contentType = request.header("content-type")?.lowercased() ?? ""
        if type == WNSRoute.raw {
            return contentType.hasPrefix("application/octet-stream") && request.body.readableBytes > 0
                ? nil : badRequest
        }
        guard let root = WNSRoute.rootElements[type], contentType.hasPrefix("text/xml"),
            XMLWellFormedness.rootElement(request.bodyString) == root
        else { return badRequest }
        if let ttl = request.header("x-wns-ttl"), Int(ttl).map({ $0 < 0 }) ?? true { return badRequest }
        return nil
    }
}
