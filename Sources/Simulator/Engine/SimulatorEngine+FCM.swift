import Foundation
import NIOCore
import PushCore

extension SimulatorEngine {
    /// `POST /v1/projects/{project}/messages:send`, answering errors in Google's `google.rpc.Status` shape.
    func handleFCM(_ request: SimulatorRequest, path: Substring) -> SimulatorResponse {
        guard path.hasSuffix(FCMRoute.suffix), request.method == "POST" else {
            return Self.googleError(code: 404, message: "Requested entity was not found.", errorCode: nil)
        }
        let project = path.dropFirst(FCMRoute.prefix.count).dropLast(FCMRoute.suffix.count)
        guard !project.isEmpty, !project.contains("/") else {
            return Self.googleError(code: 404, message: "Requested entity was not found.", errorCode: nil)
        }
        let settings = self.settings.withLock { $0 }
        let now = Date()
        var token: String?
        var validateOnly = false
        var validation: ProviderRejection?
        if !self.hasValidAccessToken(request.header("authorization")) {
            validation = ProviderRejection(status: 401, reason: "UNAUTHENTICATED")
        } else {
            switch Self.parseMessage(request) {
            case .success(let message):
                token = message.token
                validateOnly = message.validateOnly
            case .failure(let rejection):
                validation = rejection
            }
        }
        let (outcome, number) = self.outcome(
            .fcm, request, token: token, validation: validation, settings: settings, now: now)
        var response: SimulatorResponse
        switch outcome {
        case .some(let rejection) where rejection.status == 401:
            response = Self.googleError(code: 401, message: FCMRoute.unauthenticatedMessage, errorCode: nil)
        case .some(let rejection):
            response = Self.googleError(
                code: rejection.status, message: FCMRoute.message(for: rejection.reason), errorCode: rejection.reason
            )
        case .none:
            let id = validateOnly ? "fake_message_id" : "0:\(number)%simulator"
            response = .json(200, .members([("name", .string("projects/\(project)/messages/\(id)"))]))
        }
        response.delay = Self.delay(for: settings.latency)
        return response
    }

    private func hasValidAccessToken(_ authorization: String?) -> Bool {
        guard let authorization, BearerScheme.matches(authorization) else { return false }
        let token = authorization.dropFirst(7).drop { $0 == " " }
        return self.accessTokens.withLock { $0.isValid(token) }
    }

    /// What the simulator needs from a send request: the target token (`nil` for topic or condition sends).
    private struct Message {
        var token: String?
        var validateOnly: Bool
    }

    private static func parseMessage(_ request: SimulatorRequest) -> Result<Message, ProviderRejection> {
        let invalid = ProviderRejection(status: 400, reason: "INVALID_ARGUMENT")
        if request.bodyTooLarge { return .failure(invalid) }
        guard let document = request.body.withUnsafeReadableBytes({ try? JSON.parse($0) }),
            let message = document["message"], message.isObject
        else { return .failure(invalid) }
        let targets = ["token", "topic", "condition"].compactMap { message[$0] }
        guard targets.count == 1, let target = targets[0].stringValue, !target.isEmpty else {
            return .failure(invalid)
        }
        return .success(
            Message(token: message["token"]?.stringValue, validateOnly: document["validate_only"]?.boolValue ?? false)
        )
    }

    static func googleError(code: Int, message: String, errorCode: String?) -> SimulatorResponse {
        var error: [(key: String, value: JSON)] = [
            ("code", .integer(code)),
            ("message", .string(message)),
            ("status", .string(FCMRoute.status(for: code))),
        ]
        if let errorCode {
            error.append(
                (
                    "details",
                    .array([.members([("@type", .string(FCMRoute.errorType)), ("errorCode", .string(errorCode))])])
                )
            )
        }
        return .json(code, .members([("error", .members(error))]))
    }
}
