import Foundation
import NIOCore
import PushCore

extension SimulatorEngine {
    /// `POST /3/device/{token}`: Apple's checks in Apple's order, then the injection rules and ratios.
    func handleAPNs(_ request: SimulatorRequest, token: Substring) -> SimulatorResponse {
        let settings = self.settings.withLock { $0 }
        let now = Date()
        let validation = self.validateAPNs(request, token: token, now: Int(now.timeIntervalSince1970))
        let rule = validation == nil ? settings.rule(for: .apns, token: token) : nil
        let tokenString = token.isEmpty ? nil : String(token)
        let outcome = self.state.withLock { state in
            let outcome =
                validation
                ?? state.injectedFailure(
                    provider: .apns, token: tokenString, rule: rule, ratios: settings.failureRatios)
            state.count(provider: .apns, token: tokenString, rejection: outcome?.reason, recording: settings.recording)
            {
                RecordedRequest(
                    provider: .apns, method: request.method, path: request.path, headers: request.headers,
                    body: request.bodyString, status: outcome?.status ?? 200, reason: outcome?.reason, receivedAt: now
                )
            }
            return outcome
        }
        // Apple echoes a valid apns-id and otherwise makes one up, on errors as well as on success.
        let apnsID: String
        if let requested = request.header("apns-id"), outcome?.reason != "BadMessageId" {
            apnsID = requested
        } else {
            apnsID = self.messageIDs.next()
        }
        var response: SimulatorResponse
        if let outcome {
            var body = #"{"reason":""# + outcome.reason + "\""
            if outcome.status == 410 {
                body += #","timestamp":"# + String(Int64(now.timeIntervalSince1970 * 1000))
            }
            response = .json(outcome.status, body + "}", headers: [("apns-id", apnsID)])
        } else {
            response = SimulatorResponse(status: 200, headers: [("apns-id", apnsID)])
        }
        response.delay = Self.delay(for: settings.latency)
        return response
    }

    private func validateAPNs(_ request: SimulatorRequest, token: Substring, now: Int) -> ProviderRejection? {
        guard request.method == "POST" else { return ProviderRejection(status: 405, reason: "MethodNotAllowed") }
        if self.providerTokens.isEnabled,
            let reason = self.providerTokens.rejection(authorization: request.header("authorization"), now: now)
        {
            return ProviderRejection(status: 403, reason: reason)
        }
        if token.isEmpty { return ProviderRejection(status: 400, reason: "MissingDeviceToken") }
        guard HexDigits.isDeviceToken(token) else { return ProviderRejection(status: 400, reason: "BadDeviceToken") }
        if let id = request.header("apns-id"), UUID(uuidString: id) == nil {
            return ProviderRejection(status: 400, reason: "BadMessageId")
        }
        guard let topic = request.header("apns-topic"), !topic.isEmpty else {
            return ProviderRejection(status: 400, reason: "MissingTopic")
        }
        let pushType = request.header("apns-push-type")
        if let pushType, !APNsRoute.pushTypes.contains(pushType) {
            return ProviderRejection(status: 400, reason: "InvalidPushType")
        }
        if let priority = request.header("apns-priority"), !APNsRoute.priorities.contains(priority) {
            return ProviderRejection(status: 400, reason: "BadPriority")
        }
        if let expiration = request.header("apns-expiration"),
            expiration.isEmpty || !expiration.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        {
            return ProviderRejection(status: 400, reason: "BadExpirationDate")
        }
        if let collapseID = request.header("apns-collapse-id"), collapseID.utf8.count > APNsRoute.maximumCollapseIDBytes
        {
            return ProviderRejection(status: 400, reason: "BadCollapseId")
        }
        let limit = pushType == "voip" ? APNsRoute.maximumVoIPPayloadBytes : APNsRoute.maximumPayloadBytes
        if request.bodyTooLarge || request.body.readableBytes > limit {
            return ProviderRejection(status: 413, reason: "PayloadTooLarge")
        }
        if request.body.readableBytes == 0 { return ProviderRejection(status: 400, reason: "PayloadEmpty") }
        // Apple documents no reason for malformed JSON; `BadPayload` is the simulator's own word for it.
        let payload = request.body.withUnsafeReadableBytes { try? JSON.parse($0) }
        guard let aps = payload?["aps"], aps.isObject else {
            return ProviderRejection(status: 400, reason: "BadPayload")
        }
        return nil
    }
}
