import Curl
import Testing

@testable import Delivery

@Suite struct TransportOutcomeTests {
    @Test func connectionTroubleIsRetryableButConfigurationAndCancellationAreNot() {
        let reset = CurlError.transfer(code: .http2, message: "GOAWAY", responseStarted: false)
        #expect(DeliveryOutcome.transportFailure(reset) == .retryable(reason: .transport(reset), retryAfter: nil))
        let timeout = CurlError.transfer(code: .operationTimedOut, message: "t", responseStarted: true)
        #expect(DeliveryOutcome.transportFailure(timeout) == .retryable(reason: .transport(timeout), retryAfter: nil))
        let badCA = CurlError.transfer(code: .peerFailedVerification, message: "v", responseStarted: false)
        #expect(DeliveryOutcome.transportFailure(badCA) == .permanent(reason: .transport(badCA)))
        #expect(DeliveryOutcome.transportFailure(.cancelled) == .permanent(reason: .transport(.cancelled)))
    }

    @Test func accessTokenTroubleIsRetryableOnlyWhenTransient() {
        let down = AccessTokenError.refused(status: 503, error: nil, body: "")
        #expect(DeliveryOutcome.accessTokenFailure(down) == .retryable(reason: .accessToken(down), retryAfter: nil))
        let grant = AccessTokenError.refused(status: 400, error: "invalid_grant", body: "")
        #expect(DeliveryOutcome.accessTokenFailure(grant) == .permanent(reason: .accessToken(grant)))
    }
}
