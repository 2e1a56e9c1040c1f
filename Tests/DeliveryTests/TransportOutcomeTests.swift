import Curl
import Testing

@testable import Delivery

@Suite struct TransportOutcomeTests {
    @Test func connectionTroubleIsRetryableButConfigurationAndCancellationAreNot() {
        let reset = CurlError.transfer(code: .http2, message: "GOAWAY", responseStarted: false)
        #expect(
            DeliveryOutcome.transportFailure(reset) == .retryable(reason: .transport(.libcurl(reset)), retryAfter: nil))
        let timeout = CurlError.transfer(code: .operationTimedOut, message: "t", responseStarted: true)
        #expect(
            DeliveryOutcome.transportFailure(timeout)
                == .retryable(reason: .transport(.libcurl(timeout)), retryAfter: nil))
        let badCA = CurlError.transfer(code: .peerFailedVerification, message: "v", responseStarted: false)
        #expect(DeliveryOutcome.transportFailure(badCA) == .permanent(reason: .transport(.libcurl(badCA))))
        #expect(
            DeliveryOutcome.transportFailure(CurlError.cancelled)
                == .permanent(reason: .transport(.libcurl(.cancelled))))
    }

    @Test func accessTokenTroubleIsRetryableOnlyWhenTransient() {
        let down = AccessTokenError.refused(status: 503, error: nil, body: "")
        #expect(DeliveryOutcome.accessTokenFailure(down) == .retryable(reason: .accessToken(down), retryAfter: nil))
        let grant = AccessTokenError.refused(status: 400, error: "invalid_grant", body: "")
        #expect(DeliveryOutcome.accessTokenFailure(grant) == .permanent(reason: .accessToken(grant)))
    }
}
