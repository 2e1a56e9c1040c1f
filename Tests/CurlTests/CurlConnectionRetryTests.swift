import Testing

@testable import Curl

@Suite struct CurlConnectionRetryTests {
    @Test(arguments: [
        CurlCode.http2, .http2Stream, .sendError, .recvError, .gotNothing, .couldNotConnect, .sslConnectError,
    ])
    func connectionFailuresBeforeAnyResponseAreRetried(code: CurlCode) {
        #expect(CurlConnectionRetry.shouldRetry(code: code, responseStarted: false, retriesSoFar: 0, limit: 3))
    }

    @Test func nothingIsRetriedOnceTheResponseBegan() {
        #expect(!CurlConnectionRetry.shouldRetry(code: .http2, responseStarted: true, retriesSoFar: 0, limit: 3))
        #expect(!CurlConnectionRetry.shouldRetry(code: .recvError, responseStarted: true, retriesSoFar: 0, limit: 3))
    }

    @Test(arguments: [CurlCode.operationTimedOut, .peerFailedVerification, .couldNotResolveHost, .urlMalformed])
    func timeoutsAndConfigurationErrorsAreNotRetried(code: CurlCode) {
        #expect(!CurlConnectionRetry.shouldRetry(code: code, responseStarted: false, retriesSoFar: 0, limit: 3))
    }

    @Test func retriesAreBounded() {
        #expect(CurlConnectionRetry.shouldRetry(code: .http2, responseStarted: false, retriesSoFar: 2, limit: 3))
        #expect(!CurlConnectionRetry.shouldRetry(code: .http2, responseStarted: false, retriesSoFar: 3, limit: 3))
        #expect(!CurlConnectionRetry.shouldRetry(code: .http2, responseStarted: false, retriesSoFar: 0, limit: 0))
    }
}
