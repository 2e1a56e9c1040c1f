import Foundation
import Testing

@testable import Delivery

@Suite struct RetryStateMachineTests {
    @Test func backoffDoublesFromTheBaseUpToTheCap() {
        let machine = RetryStateMachine(policy: RetryPolicy(baseDelay: .milliseconds(200), maxDelay: .seconds(10)))
        let ceilings = (1...8).map { machine.backoffCeiling(afterFailures: $0) }
        #expect(
            ceilings == [
                .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600),
                .milliseconds(3200), .milliseconds(6400), .seconds(10), .seconds(10),
            ]
        )
    }

    @Test func fullJitterScalesTheCeilingByTheRandomNumber() {
        var machine = RetryStateMachine(policy: RetryPolicy(maxAttempts: 10))
        #expect(machine.failed(retryAfter: nil, random: 0.5) == .retry(after: .milliseconds(100)))
        #expect(machine.failed(retryAfter: nil, random: 0) == .retry(after: .zero))
        #expect(machine.failed(retryAfter: nil, random: 0.25) == .retry(after: .milliseconds(200)))
    }

    @Test func retryAfterIsAFloor() {
        var machine = RetryStateMachine()
        #expect(machine.failed(retryAfter: .seconds(3), random: 0.9) == .retry(after: .seconds(3)))
        var small = RetryStateMachine()
        #expect(small.failed(retryAfter: .milliseconds(10), random: 0.5) == .retry(after: .milliseconds(100)))
    }

    @Test func givesUpAfterMaxAttempts() {
        var machine = RetryStateMachine(policy: RetryPolicy(maxAttempts: 5))
        let actions = (0..<5).map { _ in machine.failed(retryAfter: nil, random: 0.5) }
        #expect(actions.prefix(4).allSatisfy { $0 != .giveUp })
        #expect(actions.last == .giveUp)
        #expect(machine.attempts == 5)
    }

    @Test func givesUpWhenRetryAfterIsTooLongToWaitFor() {
        var machine = RetryStateMachine(policy: RetryPolicy(maxRetryAfter: .seconds(60)))
        #expect(machine.failed(retryAfter: .seconds(61), random: 0.5) == .giveUp)
    }

    @Test func credentialRefreshRetriesAtOnceButOnlyOnce() {
        var machine = RetryStateMachine()
        #expect(machine.credentialsRejected() == .retry(after: .zero))
        #expect(machine.credentialsRejected() == .giveUp)
    }

    @Test func retryAfterHeaderReadsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 5 ", now: now) == .seconds(5))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:50:07 GMT", now: now) == .seconds(30))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:00 GMT", now: now) == .zero)
        #expect(RetryAfter.parse("-3", now: now) == nil)
        #expect(RetryAfter.parse("soon", now: now) == nil)
    }
}
