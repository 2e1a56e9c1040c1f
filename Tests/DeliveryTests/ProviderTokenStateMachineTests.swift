import Foundation
import Testing

@testable import Delivery

@Suite struct ProviderTokenStateMachineTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func tokenIsReusedUntilTheRefreshAge() throws {
        var machine = try ProviderTokenStateMachine(refreshAge: .seconds(50 * 60))
        #expect(machine.action(now: start) == .generate)
        machine.generated("t1", issuedAt: start)
        #expect(machine.action(now: start.addingTimeInterval(49 * 60 + 59)) == .use("t1"))
        #expect(machine.action(now: start.addingTimeInterval(50 * 60)) == .generate)
    }

    @Test func refreshAgeMustLieWithinApplesWindow() {
        #expect(throws: CredentialError.invalidRefreshAge(.seconds(19 * 60))) {
            try ProviderTokenStateMachine(refreshAge: .seconds(19 * 60))
        }
        #expect(throws: CredentialError.invalidRefreshAge(.seconds(61 * 60))) {
            try ProviderTokenStateMachine(refreshAge: .seconds(61 * 60))
        }
        #expect(throws: Never.self) { try ProviderTokenStateMachine(refreshAge: .seconds(20 * 60)) }
        #expect(throws: Never.self) { try ProviderTokenStateMachine(refreshAge: .seconds(60 * 60)) }
    }

    @Test func expiredProviderTokenRegeneratesOnceForTheCurrentToken() throws {
        var machine = try ProviderTokenStateMachine()
        machine.generated("t1", issuedAt: start)
        let later = start.addingTimeInterval(30 * 60)
        machine.rejected("t1", now: later)
        #expect(machine.action(now: later) == .generate)
        machine.generated("t2", issuedAt: later)
        // Late rejections of the old token, from requests that were in flight, change nothing.
        machine.rejected("t1", now: later.addingTimeInterval(1))
        #expect(machine.action(now: later.addingTimeInterval(1)) == .use("t2"))
    }

    @Test func rejectionOfABrandNewTokenIsIgnored() throws {
        var machine = try ProviderTokenStateMachine()
        machine.generated("t1", issuedAt: start)
        machine.rejected("t1", now: start.addingTimeInterval(10))
        #expect(machine.action(now: start.addingTimeInterval(10)) == .use("t1"))
    }

    @Test func clockSteppingBackwardsRegenerates() throws {
        var machine = try ProviderTokenStateMachine()
        machine.generated("t1", issuedAt: start)
        #expect(machine.action(now: start.addingTimeInterval(-120)) == .generate)
    }
}
