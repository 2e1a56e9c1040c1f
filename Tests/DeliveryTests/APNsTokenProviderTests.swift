import Foundation
import TestEnvironment
import Testing

@testable import Delivery

@Suite struct APNsTokenProviderTests {
    @Test func providerSharesOneTokenAndSignsAnotherAfterTheRefreshAge() throws {
        let clock = TestClock()
        let signer = try APNsJWTSigner(keyFile: TestKeys.apnsKeyFile, keyId: "K", teamId: "T")
        let provider = try APNsTokenProvider(signer: signer, refreshAge: .seconds(20 * 60), clock: clock.serviceClock)
        let first = provider.currentToken()
        clock.advance(by: .seconds(19 * 60))
        #expect(provider.currentToken() == first)
        clock.advance(by: .seconds(60))
        let second = provider.currentToken()
        #expect(second != first)
        #expect(try JWTParts(second).claims["iat"]?.intValue == Int64(clock.now().timeIntervalSince1970))
    }

    @Test func rejectedTokenIsReplaced() throws {
        let clock = TestClock()
        let signer = try APNsJWTSigner(keyFile: TestKeys.apnsKeyFile, keyId: "K", teamId: "T")
        let provider = try APNsTokenProvider(signer: signer, clock: clock.serviceClock)
        let first = provider.currentToken()
        clock.advance(by: .seconds(5 * 60))
        provider.rejected(first)
        #expect(provider.currentToken() != first)
    }
}
