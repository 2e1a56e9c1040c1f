import Curl
import Synchronization
import Testing

@testable import Delivery

@Suite struct RetryLoopTests {
    /// Replays scripted outcomes and records what the loop did between them.
    final class Script: Sendable {
        let outcomes: Mutex<[DeliveryOutcome]>
        let sleeps = Mutex<[Duration]>([])

        init(_ outcomes: [DeliveryOutcome]) { self.outcomes = Mutex(outcomes) }

        func next() -> DeliveryOutcome { outcomes.withLock { $0.removeFirst() } }

        func run(_ policy: RetryPolicy = RetryPolicy(), first: DeliveryOutcome? = nil) async -> DeliveryResult {
            await RetryLoop.run(
                policy: policy, random: { 0.5 },
                sleep: { duration in self.sleeps.withLock { $0.append(duration) } },
                first: first,
                attempt: { self.next() }
            )
        }
    }

    let unavailable = DeliveryOutcome.retryable(reason: .apns(.serviceUnavailable), retryAfter: nil)

    @Test func retriesWithBackoffUntilSuccess() async {
        let script = Script([unavailable, unavailable, .success(id: "x")])
        let result = await script.run()
        #expect(result == DeliveryResult(outcome: .success(id: "x"), attempts: 3))
        #expect(script.sleeps.withLock { $0 } == [.milliseconds(100), .milliseconds(200)])
    }

    /// A fan-out's first attempts go out together (`attempt(all:)`); the loop judges that answer as the first
    /// attempt, so the backoff and the attempt count continue from it.
    @Test func anAttemptAlreadyMadeCountsAsTheFirst() async {
        let script = Script([unavailable, .success(id: "x")])
        let result = await script.run(first: unavailable)
        #expect(result == DeliveryResult(outcome: .success(id: "x"), attempts: 3))
        #expect(script.sleeps.withLock { $0 } == [.milliseconds(100), .milliseconds(200)])

        let given = Script([])
        #expect(await given.run(first: .success(id: "y")) == DeliveryResult(outcome: .success(id: "y"), attempts: 1))

        let exhausted = Script(Array(repeating: unavailable, count: 4))
        #expect(await exhausted.run(RetryPolicy(maxAttempts: 5), first: unavailable).attempts == 5)
        #expect(exhausted.outcomes.withLock { $0.isEmpty })
    }

    @Test func givesUpWithTheLastOutcomeAfterMaxAttempts() async {
        let script = Script(Array(repeating: unavailable, count: 5))
        let result = await script.run(RetryPolicy(maxAttempts: 5))
        #expect(result == DeliveryResult(outcome: unavailable, attempts: 5))
        #expect(script.sleeps.withLock { $0.count } == 4)
    }

    @Test func finalOutcomesEndAtOnce() async {
        let gone = DeliveryOutcome.invalidToken(reason: .apns(.unregistered), since: nil)
        let script = Script([gone])
        #expect(await script.run() == DeliveryResult(outcome: gone, attempts: 1))
        #expect(script.sleeps.withLock { $0.isEmpty })
    }

    @Test func expiredCredentialsAreRetriedAtOnceButOnlyOnce() async {
        let expired = DeliveryOutcome.expiredProviderToken(reason: .apns(.expiredProviderToken))
        let script = Script([expired, .success(id: "y")])
        #expect(await script.run() == DeliveryResult(outcome: .success(id: "y"), attempts: 2))
        #expect(script.sleeps.withLock { $0.isEmpty })
        let twice = Script([expired, expired, .success(id: "z")])
        #expect(await twice.run() == DeliveryResult(outcome: expired, attempts: 2))
    }

    @Test func cancelledSleepReturnsTheLastOutcome() async {
        let result = await RetryLoop.run(
            policy: RetryPolicy(), random: { 0.5 }, sleep: { _ in throw CancellationError() },
            attempt: { unavailable }
        )
        #expect(result == DeliveryResult(outcome: unavailable, attempts: 1))
    }
}
