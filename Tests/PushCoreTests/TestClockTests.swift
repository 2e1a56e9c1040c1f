import Foundation
import PushCore
import TestEnvironment
import Testing

/// The clock the service's waits are tested on: its sleeps end when it is moved past them, earliest first,
/// never by real time; a cancelled sleep throws.
@Suite struct TestClockTests {
    @Test func sleepsEndWhenTheClockReachesThemInDeadlineOrder() async throws {
        let clock = TestClock(at: Date(timeIntervalSince1970: 1_000))
        let woken = WokenOrder()
        let long = Task {
            try await clock.serviceClock.sleep(for: .seconds(20))
            await woken.add("long at \(clock.now().timeIntervalSince1970)")
        }
        let short = Task {
            try await clock.serviceClock.sleep(for: .seconds(5))
            await woken.add("short at \(clock.now().timeIntervalSince1970)")
        }
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeping == 2)
        clock.advance(by: .seconds(1))
        try await short.value
        #expect(clock.sleeping == 1)
        clock.advance(by: .seconds(15))
        try await long.value
        #expect(await woken.names == ["short at 1005.0", "long at 1020.0"])
        #expect(clock.now() == Date(timeIntervalSince1970: 1_020))
    }

    @Test func aCancelledSleepThrowsAndLeavesNoSleeper() async throws {
        let clock = TestClock()
        let sleeping = Task { try await clock.serviceClock.sleep(for: .seconds(60)) }
        try await clock.waitForSleepers()
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(clock.sleeping == 0)
    }

    @Test func aZeroSleepReturnsAtOnce() async throws {
        let clock = TestClock()
        try await clock.serviceClock.sleep(for: .zero)
        #expect(clock.sleeping == 0)
    }
}

private actor WokenOrder {
    var names: [String] = []
    func add(_ name: String) { names.append(name) }
}
