import Curl
import NGHTTP2
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

    @Test func nghttp2ConnectionTroubleIsRetryableButTLSAndCancellationAreNot() {
        let retryable: [NGHTTP2Error] = [
            .connect("refused"), .timeout(responseStarted: true), .reset("REFUSED_STREAM", responseStarted: false),
            .reset("connection lost", responseStarted: true), .protocolError("bad frame"),
        ]
        for error in retryable {
            #expect(
                DeliveryOutcome.transportFailure(.nghttp2(error))
                    == .retryable(reason: .transport(.nghttp2(error)), retryAfter: nil))
        }
        let permanent: [NGHTTP2Error] = [
            .tls("certificate verify failed"), .invalidRequest("not https"), .cancelled, .shutdown,
        ]
        for error in permanent {
            #expect(
                DeliveryOutcome.transportFailure(.nghttp2(error)) == .permanent(reason: .transport(.nghttp2(error))))
        }
    }

    @Test func accessTokenTroubleIsRetryableOnlyWhenTransient() {
        let down = AccessTokenError.refused(status: 503, error: nil, body: "")
        #expect(DeliveryOutcome.accessTokenFailure(down) == .retryable(reason: .accessToken(down), retryAfter: nil))
        let grant = AccessTokenError.refused(status: 400, error: "invalid_grant", body: "")
        #expect(DeliveryOutcome.accessTokenFailure(grant) == .permanent(reason: .accessToken(grant)))
    }
}
