import Foundation
import Testing

@testable import PushCore

/// Issue 13 point 8: no client number or string reaches a trap, and what PostgreSQL cannot store is refused
/// at the edge. Expected values are worked out by hand.
@Suite("Bad input at the edge")
struct EdgeInputTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z

    func parse(_ body: [String: JSON]) throws(LeanError) -> PushRequest {
        try PushRequest.parse(body, devicesEndpoint: false, headerProd: nil, now: now)
    }

    @Test("expiration_interval: huge, infinite-bound, zero and negative values are code 1, never a trap")
    func hugeIntervals() throws {
        for value: JSON in [
            6e307, 1e300, -1, 0, .double(Double(PushRequest.maxExpirationInterval) + 1), "6e307", "abc",
        ] {
            #expect(
                throws: LeanError.invalidParameter(
                    "expiration_interval must be a number of seconds above 0 and at most 315360000.")
            ) { try parse(["data": ["alert": "x"], "expiration_interval": value]) }
        }
        // The largest accepted interval still spells a date.
        let longest = try parse(["data": ["alert": "x"], "expiration_interval": 315_360_000])
        #expect(LeanDate.format(try #require(longest.expiration)) == "2033-11-11T22:13:20.000Z")
    }

    @Test("expiration_interval counts from push_time when one is given, else from the request")
    func intervalBase() throws {
        let scheduled = try parse([
            "data": ["alert": "x"], "push_time": "2023-11-15T00:00:00Z", "expiration_interval": 90,
        ])
        #expect(scheduled.isScheduled)
        #expect(LeanDate.format(try #require(scheduled.expiration)) == "2023-11-15T00:01:30.000Z")
        let soon = try parse(["data": ["alert": "x"], "push_time": "2023-11-14T22:13:40Z", "expiration_interval": 5])
        #expect(!soon.isScheduled)
        #expect(LeanDate.format(try #require(soon.expiration)) == "2023-11-14T22:13:45.000Z")
        let immediate = try parse(["data": ["alert": "x"], "expiration_interval": 10])
        #expect(LeanDate.format(try #require(immediate.expiration)) == "2023-11-14T22:13:30.000Z")
        #expect(throws: LeanError.invalidParameter("expiration_time must be after push_time.")) {
            try parse([
                "data": ["alert": "x"], "push_time": "2023-11-14T22:13:40Z", "expiration_time": "2023-11-14T22:13:30Z",
            ])
        }
    }

    @Test("a stored request is read back without judging its times again")
    func storedKeepsTimes() throws {
        let original = try parse([
            "data": ["alert": "x"], "push_time": "2023-11-14T22:13:40Z", "expiration_interval": 5,
        ])
        let stored = try PushRequest.stored(original.json)
        #expect(stored.pushTime == original.pushTime)
        #expect(stored.expiration == original.expiration)
    }

    @Test("impossible calendar dates are refused; leap days are not")
    func calendar() {
        #expect(LeanDate.parse("2024-02-31T00:00:00Z") == nil)
        #expect(LeanDate.parse("2023-02-29") == nil)
        #expect(LeanDate.parse("2023-04-31") == nil)
        #expect(LeanDate.parse("1900-02-29") == nil)
        #expect(LeanDate.parse("2000-02-29") != nil)
        #expect(LeanDate.parse("9999-12-31T23:59:59.999-14:00") == nil, "the year 10000 in UTC")
        #expect(LeanDate.parse("0001-01-01T00:00:00+01:00") == nil, "the year 0 in UTC")
        #expect(LeanDate.parse("2024-02-29T12:00:00Z") == Date(timeIntervalSince1970: 1_709_208_000))
    }

    @Test("formatting never traps: infinite, NaN and far dates clamp to the spellable range")
    func formatting() {
        #expect(LeanDate.format(Date(timeIntervalSince1970: .infinity)) == "9999-12-31T23:59:59.999Z")
        #expect(LeanDate.format(Date(timeIntervalSince1970: -.infinity)) == "0001-01-01T00:00:00.000Z")
        #expect(LeanDate.format(Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00.000Z")
        #expect(LeanDate.format(Date(timeIntervalSince1970: 6e307)) == "9999-12-31T23:59:59.999Z")
    }

    @Test("Increment and Decrement past the number range are code 1, never an overflow trap")
    func incrementOverflow() throws {
        let outOfRange = LeanError.invalidParameter("Increment of score goes out of the range of numbers.")
        #expect(throws: outOfRange) {
            try InstallationUpdate.apply(
                body: ["score": ["__op": "Increment", "amount": 1]], to: ["score": .int(.max)], isCreate: false)
        }
        #expect(throws: outOfRange) {
            try InstallationUpdate.apply(
                body: ["score": ["__op": "Increment", "amount": 1e308]], to: ["score": 1e308], isCreate: false)
        }
        #expect(throws: LeanError.invalidParameter("Decrement of score goes out of the range of numbers.")) {
            try InstallationUpdate.apply(
                body: ["score": ["__op": "Decrement", "amount": .int(.min)]], to: ["score": 0], isCreate: false)
        }
        let fine = try InstallationUpdate.apply(
            body: ["score": ["__op": "Increment", "amount": 2]], to: ["score": .int(.max - 2)], isCreate: false)
        #expect(fine.set["score"] == .int(.max))
    }

    @Test("JSON with NUL or numbers beyond Double is malformed, so nothing unstorable gets in")
    func unstorableJSON() {
        #expect(throws: (any Error).self) { try JSON.parse(#"{"a":"x\u0000y"}"#) }
        #expect(throws: (any Error).self) { try JSON.parse(#"{"a\u0000":1}"#) }
        #expect(throws: (any Error).self) { try JSON.parse(#"{"a":1e400}"#) }
        #expect((try? JSON.parse(#"{"a":"x\u0001y","b":1e300}"#)) != nil)
    }
}

@Suite("Fan-out failure policy")
struct FanOutFailurePolicyTests {
    let policy = FanOutFailurePolicy(maxAttempts: 4, baseDelay: .seconds(1), maxDelay: .seconds(5))

    @Test("transient errors back off exponentially with jitter, capped, and fail after maxAttempts")
    func transient() {
        #expect(
            policy.decide(kind: .transient, reason: "x", attempts: 0, random: 1)
                == .retry(after: .seconds(1), attempts: 1))
        #expect(
            policy.decide(kind: .transient, reason: "x", attempts: 0, random: 0)
                == .retry(after: .milliseconds(500), attempts: 1))
        #expect(
            policy.decide(kind: .transient, reason: "x", attempts: 1, random: 1)
                == .retry(after: .seconds(2), attempts: 2))
        #expect(
            policy.decide(kind: .transient, reason: "x", attempts: 2, random: 1)
                == .retry(after: .seconds(4), attempts: 3))
        #expect(
            policy.decide(kind: .transient, reason: "boom", attempts: 3, random: 1) == .fail(status: "failed: boom"))
        let capped = FanOutFailurePolicy(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(5))
        #expect(
            capped.decide(kind: .transient, reason: "x", attempts: 6, random: 1)
                == .retry(after: .seconds(5), attempts: 7))
    }

    @Test("permanent errors fail at once; database outages never count against a push")
    func permanentAndOutage() {
        #expect(
            policy.decide(kind: .permanent, reason: "bad", attempts: 0, random: 0.5) == .fail(status: "failed: bad"))
        #expect(policy.decide(kind: .databaseUnavailable, reason: "down", attempts: 99, random: 0.5) == .wait)
    }

    @Test("job states: only scheduled and targeting are due; done, cancelled and failed are terminal")
    func states() {
        #expect(JobState.due == [.scheduled, .targeting])
        #expect(JobState.allCases.filter(\.isTerminal) == [.done, .cancelled, .failed])
    }
}
