import Foundation
import Testing

@testable import Delivery

@Suite struct APNsTokenProviderTests {
    @Test func providerSharesOneTokenAndSignsAnotherAfterTheRefreshAge() throws {
        let clock = TestClock()
        let signer = try APNsJWTSigner(keyFile: TestKeys.apnsKeyFile, keyId: "K", teamId: "T")
        let provider = try APNsTokenProvider(signer: signer, refreshAge: .seconds(20 * 60), now: clock.function)
        let first = provider.currentToken()
        clock.advance(by: 19 * 60)
        #expect(provider.currentToken() == first)
        clock.advance(by: 60)
        let second = provider.currentToken()
        #expect(second != first)
        #expect(try JWTParts(second).claims["iat"]?.intValue == Int64(clock.now.timeIntervalSince1970))
    }

    @Test func rejectedTokenIsReplaced() throws {
        let clock = TestClock()
        let signer = try APNsJWTSigner(keyFile: TestKeys.apnsKeyFile, keyId: "K", teamId: "T")
        let provider = try APNsTokenProvider(signer: signer, now: clock.function)
        let first = provider.currentToken()
        clock.advance(by: 5 * 60)
        provider.rejected(first)
        #expect(provider.currentToken() != first)
    }
}
