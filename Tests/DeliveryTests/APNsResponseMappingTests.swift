import Curl
import Foundation
import HTTPTypes
import Testing

@testable import Delivery

@Suite struct APNsResponseMappingTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func outcome(_ status: Int, _ body: String = "", headers: HTTPFields = [:]) -> DeliveryOutcome {
        APNsResponseMapping.outcome(
            status: status, headers: headers, body: Array(body.utf8), sentId: "sent", now: now
        )
    }

    @Test func successCarriesApnsId() {
        #expect(outcome(200, headers: [HTTPField.Name("apns-id")!: "ABC"]) == .success(id: "sent"))
        #expect(outcome(200) == .success(id: "sent"))
        let unsent = APNsResponseMapping.outcome(
            status: 200, headers: [HTTPField.Name("apns-id")!: "ABC"], body: [], sentId: nil, now: now)
        #expect(unsent == .success(id: "ABC"))
    }

    /// A `CurlResponse` parses its header lines on each read: a delivered push must not pay for it.
    @Test func headersAreReadOnlyWhenNeeded() {
        let reads = HeaderReads()
        _ = APNsResponseMapping.outcome(status: 200, headers: reads.fields(), body: [], sentId: "sent", now: now)
        #expect(reads.count == 0)
        _ = APNsResponseMapping.outcome(status: 200, headers: reads.fields(), body: [], sentId: nil, now: now)
        #expect(reads.count == 1)
        let throttled = APNsResponseMapping.outcome(
            status: 429, headers: reads.fields(["retry-after": "7"]),
            body: Array(#"{"reason":"TooManyRequests"}"#.utf8),
            sentId: "sent", now: now)
        #expect(reads.count == 2)
        #expect(throttled == .retryable(reason: .apns(.tooManyRequests), retryAfter: .seconds(7)))
    }

    @Test func unregisteredAndExpiredTokensInvalidateWithTheirTimestamp() {
        #expect(
            outcome(410, #"{"reason":"Unregistered","timestamp":1699999999000}"#)
                == .invalidToken(reason: .apns(.unregistered), since: Date(timeIntervalSince1970: 1_699_999_999))
        )
        #expect(
            outcome(410, #"{"reason":"ExpiredToken"}"#) == .invalidToken(reason: .apns(.expiredToken), since: nil)
        )
        #expect(
            outcome(400, #"{"reason":"BadDeviceToken"}"#) == .invalidToken(reason: .apns(.badDeviceToken), since: nil)
        )
    }

    @Test func expiredProviderTokenAsksForANewJWT() {
        #expect(
            outcome(403, #"{"reason":"ExpiredProviderToken"}"#)
                == .expiredProviderToken(reason: .apns(.expiredProviderToken))
        )
        #expect(
            outcome(403, #"{"reason":"InvalidProviderToken"}"#) == .permanent(reason: .apns(.invalidProviderToken))
        )
    }

    @Test func throttlingAndServerErrorsAreRetryableHonouringRetryAfter() {
        #expect(
            outcome(429, #"{"reason":"TooManyRequests"}"#, headers: [HTTPField.Name("retry-after")!: "7"])
                == .retryable(reason: .apns(.tooManyRequests), retryAfter: .seconds(7))
        )
        #expect(
            outcome(500, #"{"reason":"InternalServerError"}"#)
                == .retryable(reason: .apns(.internalServerError), retryAfter: nil)
        )
        #expect(
            outcome(503, #"{"reason":"ServiceUnavailable"}"#)
                == .retryable(reason: .apns(.serviceUnavailable), retryAfter: nil)
        )
        #expect(outcome(502, "<html>bad gateway</html>") == .retryable(reason: .httpStatus(502), retryAfter: nil))
    }

    @Test func otherClientErrorsArePermanentAndUnknownReasonsSurvive() {
        #expect(outcome(400, #"{"reason":"BadTopic"}"#) == .permanent(reason: .apns(.badTopic)))
        #expect(outcome(413, #"{"reason":"PayloadTooLarge"}"#) == .permanent(reason: .apns(.payloadTooLarge)))
        #expect(outcome(400, #"{"reason":"SomethingNew"}"#) == .permanent(reason: .apns(.unknown("SomethingNew"))))
        #expect(outcome(404) == .permanent(reason: .httpStatus(404)))
    }

    @Test func reasonsRoundTripTheirSpelling() {
        for name in ["BadDeviceToken", "Unregistered", "ExpiredProviderToken", "TooManyRequests", "Whatever"] {
            #expect(APNsErrorReason(name).description == name)
        }
        #expect(ProviderReason.apns(.unregistered).description == "Unregistered")
    }
}
