import Foundation
import Testing

@testable import Delivery

@Suite struct AccessTokenStateMachineTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func oneFetchAtATimeAndOthersWait() {
        var machine = AccessTokenStateMachine(refreshMargin: .seconds(300))
        #expect(machine.action(now: start) == .fetch)
        #expect(machine.action(now: start) == .wait)
        machine.fetched("a1", expiresIn: .seconds(3600), now: start)
        #expect(machine.action(now: start.addingTimeInterval(10)) == .use("a1"))
    }

    @Test func refreshesShortlyBeforeExpiryWhileOthersKeepTheOldToken() {
        var machine = AccessTokenStateMachine(refreshMargin: .seconds(300))
        _ = machine.action(now: start)
        machine.fetched("a1", expiresIn: .seconds(3600), now: start)
        let nearExpiry = start.addingTimeInterval(3600 - 299)
        #expect(machine.action(now: nearExpiry) == .fetch)
        #expect(machine.action(now: nearExpiry) == .use("a1"))
        #expect(machine.action(now: start.addingTimeInterval(3600)) == .wait)
        machine.fetched("a2", expiresIn: .seconds(3600), now: nearExpiry)
        #expect(machine.action(now: nearExpiry) == .use("a2"))
    }

    @Test func failedFetchLetsTheNextCallerTryAgain() {
        var machine = AccessTokenStateMachine()
        #expect(machine.action(now: start) == .fetch)
        machine.fetchFailed()
        #expect(machine.action(now: start) == .fetch)
    }

    @Test func rejectedTokenIsDroppedUnlessAlreadyReplaced() {
        var machine = AccessTokenStateMachine()
        _ = machine.action(now: start)
        machine.fetched("a1", expiresIn: .seconds(3600), now: start)
        machine.rejected("old")
        #expect(machine.action(now: start) == .use("a1"))
        machine.rejected("a1")
        #expect(machine.action(now: start) == .fetch)
    }

    @Test func shortLivedTokensRefreshAtHalfLife() {
        var machine = AccessTokenStateMachine(refreshMargin: .seconds(300))
        _ = machine.action(now: start)
        machine.fetched("a1", expiresIn: .seconds(60), now: start)
        #expect(machine.action(now: start.addingTimeInterval(29)) == .use("a1"))
        #expect(machine.action(now: start.addingTimeInterval(30)) == .fetch)
    }

    @Test func tokenEndpointAnswerIsParsed() throws {
        let body = #"{"access_token":"ya29.x","expires_in":3599,"token_type":"Bearer"}"#
        let parsed = try OAuthTokenResponse.parse(Array(body.utf8))
        #expect(parsed == OAuthTokenResponse(accessToken: "ya29.x", expiresIn: .seconds(3599)))
        #expect(throws: AccessTokenError.malformedResponse("no access_token")) {
            try OAuthTokenResponse.parse(Array(#"{"expires_in":3599}"#.utf8))
        }
        #expect(OAuthTokenResponse.errorCode(Array(#"{"error":"invalid_grant"}"#.utf8)) == "invalid_grant")
    }
}
