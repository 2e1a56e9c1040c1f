import Curl
import Foundation
import HTTPTypes
import Testing

@testable import Delivery

@Suite struct FCMResponseMappingTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let tokenViolation =
        #"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":"#
        + #"[{"field":"message.token","description":"Invalid registration token"}]}"#

    private func outcome(_ status: Int, _ body: String, headers: HTTPFields = [:]) -> DeliveryOutcome {
        FCMResponseMapping.outcome(status: status, headers: headers, body: Array(body.utf8), now: now)
    }

    /// Google's error shape, with an FcmError detail when `errorCode` is given.
    private func googleError(
        _ code: Int, _ status: String, _ errorCode: String?, message: String = "m", extra: String? = nil
    ) -> String {
        let fcm = errorCode.map {
            #"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":""# + $0 + #""}"#
        }
        let details = [fcm, extra].compactMap { $0 }.joined(separator: ",")
        return #"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)","details":[\#(details)]}}"#
    }

    /// A `CurlResponse` parses its header lines on each read: a delivered message must not pay for it.
    @Test func headersAreReadOnlyForAnError() {
        let reads = HeaderReads()
        let body = Array(#"{"name":"projects/p/messages/0:1"}"#.utf8)
        #expect(
            FCMResponseMapping.outcome(status: 200, headers: reads.fields(), body: body, now: now)
                == .success(id: "projects/p/messages/0:1"))
        #expect(reads.count == 0)
        let busy = FCMResponseMapping.outcome(
            status: 503, headers: reads.fields(["retry-after": "3"]),
            body: Array(googleError(503, "UNAVAILABLE", nil).utf8), now: now)
        #expect(reads.count == 1)
        guard case .retryable(_, let retryAfter) = busy else {
            Issue.record("503 is retryable: \(busy)")
            return
        }
        #expect(retryAfter == .seconds(3))
    }

    @Test func successCarriesTheMessageName() {
        #expect(outcome(200, #"{"name":"projects/p/messages/0:1"}"#) == .success(id: "projects/p/messages/0:1"))
    }

    @Test func unregisteredInvalidates() {
        #expect(
            outcome(404, googleError(404, "NOT_FOUND", "UNREGISTERED"))
                == .invalidToken(reason: .fcm(.unregistered), since: nil)
        )
        // A 404 without FCM's code is a wrong project or URL, not a dead token.
        #expect(outcome(404, googleError(404, "NOT_FOUND", nil)) == .permanent(reason: .fcm(.notFound)))
    }

    @Test func invalidArgumentInvalidatesOnlyWhenItIsAboutTheToken() {
        let tokenMessage = "The registration token is not a valid FCM registration token"
        #expect(
            outcome(400, googleError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", message: tokenMessage))
                == .invalidToken(reason: .fcm(.invalidArgument), since: nil)
        )
        #expect(
            outcome(400, googleError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", extra: Self.tokenViolation))
                == .invalidToken(reason: .fcm(.invalidArgument), since: nil)
        )
        #expect(
            outcome(400, googleError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", message: "Invalid JSON payload"))
                == .permanent(reason: .fcm(.invalidArgument))
        )
    }

    @Test func unauthenticatedAsksForANewAccessToken() {
        #expect(
            outcome(401, googleError(401, "UNAUTHENTICATED", nil))
                == .expiredProviderToken(reason: .fcm(.unauthenticated))
        )
        #expect(
            outcome(401, googleError(401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR"))
                == .permanent(reason: .fcm(.thirdPartyAuthError))
        )
    }

    @Test func quotaAndServerErrorsAreRetryableHonouringRetryAfter() {
        #expect(
            outcome(
                429, googleError(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"),
                headers: [HTTPField.Name("retry-after")!: "30"])
                == .retryable(reason: .fcm(.quotaExceeded), retryAfter: .seconds(30))
        )
        #expect(
            outcome(503, googleError(503, "UNAVAILABLE", "UNAVAILABLE"))
                == .retryable(reason: .fcm(.unavailable), retryAfter: nil)
        )
        #expect(
            outcome(500, googleError(500, "INTERNAL", "INTERNAL"))
                == .retryable(reason: .fcm(.internalError), retryAfter: nil)
        )
        #expect(outcome(502, "Bad Gateway") == .retryable(reason: .httpStatus(502), retryAfter: nil))
    }

    @Test func otherErrorsArePermanentAndUnknownCodesSurvive() {
        #expect(
            outcome(403, googleError(403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH"))
                == .permanent(reason: .fcm(.senderIdMismatch))
        )
        #expect(
            outcome(400, googleError(400, "FAILED_PRECONDITION", "SOMETHING_NEW"))
                == .permanent(reason: .fcm(.unknown("SOMETHING_NEW")))
        )
        #expect(ProviderReason.fcm(.unregistered).description == "UNREGISTERED")
    }
}
