import Foundation
import Testing

@testable import PushCore

@Suite struct LoginThrottleTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func fiveWrongKeysWithinAMinuteLockTheAddressForAMinute() {
        var throttle = LoginThrottle()
        for i in 0..<4 {
            #expect(throttle.recordFailure("10.0.0.1", now: t0.addingTimeInterval(Double(i) * 10)) == nil)
            #expect(throttle.locked("10.0.0.1", now: t0.addingTimeInterval(Double(i) * 10)) == nil)
        }
        let fifth = t0.addingTimeInterval(50)
        #expect(throttle.recordFailure("10.0.0.1", now: fifth) == fifth.addingTimeInterval(60))
        #expect(throttle.locked("10.0.0.1", now: fifth.addingTimeInterval(59)) == fifth.addingTimeInterval(60))
        #expect(throttle.locked("10.0.0.1", now: fifth.addingTimeInterval(60)) == nil)
        // Other addresses are not affected.
        #expect(throttle.locked("10.0.0.2", now: fifth) == nil)
    }

    @Test func failuresOlderThanAMinuteDoNotCount() {
        var throttle = LoginThrottle()
        for i in 0..<4 { throttle.recordFailure("a", now: t0.addingTimeInterval(Double(i))) }
        // The fifth comes 61 s after the first four: only it counts.
        #expect(throttle.recordFailure("a", now: t0.addingTimeInterval(64)) == nil)
        #expect(throttle.locked("a", now: t0.addingTimeInterval(64)) == nil)
        for i in 1...3 { #expect(throttle.recordFailure("a", now: t0.addingTimeInterval(64 + Double(i))) == nil) }
        #expect(throttle.recordFailure("a", now: t0.addingTimeInterval(68)) != nil)
    }

    @Test func aRightKeyForgetsEarlierMistakes() {
        var throttle = LoginThrottle()
        for i in 0..<4 { throttle.recordFailure("a", now: t0.addingTimeInterval(Double(i))) }
        throttle.recordSuccess("a")
        #expect(throttle.recordFailure("a", now: t0.addingTimeInterval(5)) == nil)
    }

    @Test func aScanOfManyAddressesDoesNotKeepStaleEntries() {
        var throttle = LoginThrottle()
        for i in 0...LoginThrottle.pruneAbove { throttle.recordFailure("10.\(i)", now: t0) }
        // Two minutes later the old entries are pruned on the next failure; a fresh one still counts.
        let later = t0.addingTimeInterval(120)
        for _ in 0..<5 { throttle.recordFailure("x", now: later) }
        #expect(throttle.locked("x", now: later) != nil)
        #expect(throttle.trackedAddresses <= 2)
    }
}

@Suite struct LoginThrottleLimitTests {
    @Test func limitsAreTheThrottlesOwn() {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        var throttle = LoginThrottle(maxFailures: 2, window: 10, lockout: 30)
        #expect(throttle.recordFailure("u", now: t0) == nil)
        #expect(throttle.recordFailure("u", now: t0.addingTimeInterval(11)) == nil)  // the first left the window
        #expect(throttle.recordFailure("u", now: t0.addingTimeInterval(12)) == t0.addingTimeInterval(42))
        #expect(throttle.locked("u", now: t0.addingTimeInterval(41)) != nil)
        #expect(throttle.locked("u", now: t0.addingTimeInterval(42)) == nil)
    }
}
