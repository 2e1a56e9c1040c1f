import Foundation
import PushCore
import Synchronization
import TestEnvironment
import Testing

@testable import Curl
@testable import Delivery

/// `PushProvider.deliver`, the one retry loop of every provider, played against scripted answers.
@Suite struct PushProviderDeliverTests {
    /// A provider whose devices answer from a script, each device its own queue of outcomes; it records every
    /// submission (the devices of each request in it) and every wait between attempts.
    final class Scripted: PushProvider {
        struct Request: Sendable { let devices: [String] }

        let name = "scripted"
        let batchLimit: Int
        let answers: Mutex<[String: [DeliveryOutcome]]>
        let submissions = Mutex<[[[String]]]>([])
        let sleeps = Mutex<[Duration]>([])

        init(batchLimit: Int = 1, _ answers: [String: [DeliveryOutcome]]) {
            self.batchLimit = batchLimit
            self.answers = Mutex(answers)
        }

        static func devices(in request: Request) -> Int { request.devices.count }
        static func request(_ request: Request, narrowedTo positions: [Int]) -> Request {
            Request(devices: positions.map { request.devices[$0] })
        }

        func attempt(all requests: [Request]) async -> [DeliveryOutcome] {
            submissions.withLock { $0.append(requests.map(\.devices)) }
            return requests.flatMap(\.devices).map { device in answers.withLock { $0[device]!.removeFirst() } }
        }

        var httpStatistics: TransportStatistics { .zero }
        func shutdown() async {}

        func deliver(_ requests: [[String]], policy: RetryPolicy = RetryPolicy()) async -> [DeliveryResult] {
            await deliver(
                requests.map(Request.init), policy: policy, random: { 0.5 },
                clock: ServiceClock(now: Date.init, sleep: { duration in self.sleeps.withLock { $0.append(duration) } })
            ).map(\.result)
        }

        var waited: [Duration] { sleeps.withLock { $0 } }
        var sent: [[[String]]] { submissions.withLock { $0 } }
        var unanswered: Int { answers.withLock { $0.values.reduce(0) { $0 + $1.count } } }
    }

    let unavailable = DeliveryOutcome.retryable(reason: .apns(.serviceUnavailable), retryAfter: nil)
    let expired = DeliveryOutcome.expiredProviderToken(reason: .apns(.expiredProviderToken))

    @Test func retriesWithBackoffUntilSuccess() async {
        let provider = Scripted(["a": [unavailable, unavailable, .success(id: "x")]])
        #expect(await provider.deliver([["a"]]) == [DeliveryResult(outcome: .success(id: "x"), attempts: 3)])
        // Full jitter at 0.5 of RetryPolicy's 200 ms and 400 ms ceilings.
        #expect(provider.waited == [.milliseconds(100), .milliseconds(200)])
    }

    /// The first attempts of all requests go out together; then each request that needs it is retried on its
    /// own, so one device's backoff does not hold the others' answers back.
    @Test func firstAttemptsGoTogetherAndOnlyRetryWorthyRequestsAgain() async {
        let gone = DeliveryOutcome.invalidToken(reason: .apns(.unregistered), since: nil)
        let provider = Scripted([
            "a": [.success(id: "a")], "b": [unavailable, .success(id: "b")], "c": [gone],
        ])
        let results = await provider.deliver([["a"], ["b"], ["c"]])
        #expect(
            results == [
                DeliveryResult(outcome: .success(id: "a"), attempts: 1),
                DeliveryResult(outcome: .success(id: "b"), attempts: 2),
                DeliveryResult(outcome: gone, attempts: 1),
            ])
        #expect(provider.sent == [[["a"], ["b"], ["c"]], [["b"]]])
    }

    @Test func givesUpWithTheLastOutcomeAfterMaxAttempts() async {
        let provider = Scripted(["a": Array(repeating: unavailable, count: 5)])
        #expect(
            await provider.deliver([["a"]], policy: RetryPolicy(maxAttempts: 5))
                == [DeliveryResult(outcome: unavailable, attempts: 5)])
        #expect(provider.waited.count == 4)
        #expect(provider.unanswered == 0)
    }

    @Test func finalOutcomesEndAtOnce() async {
        let gone = DeliveryOutcome.invalidToken(reason: .apns(.unregistered), since: nil)
        let provider = Scripted(["a": [gone]])
        #expect(await provider.deliver([["a"]]) == [DeliveryResult(outcome: gone, attempts: 1)])
        #expect(provider.waited.isEmpty)
        #expect(provider.sent.count == 1)
    }

    @Test func expiredCredentialsAreRetriedAtOnceButOnlyOnce() async {
        let provider = Scripted(["a": [expired, .success(id: "y")]])
        #expect(await provider.deliver([["a"]]) == [DeliveryResult(outcome: .success(id: "y"), attempts: 2)])
        #expect(provider.waited.isEmpty)
        let twice = Scripted(["a": [expired, expired, .success(id: "z")]])
        #expect(await twice.deliver([["a"]]) == [DeliveryResult(outcome: expired, attempts: 2)])
        #expect(twice.unanswered == 1)
    }

    /// The wait before a retry is on the service clock: nothing is sent again until the clock reaches the
    /// provider's Retry-After, however long the test really takes, and nothing waits in real time for it.
    @Test func aRetryAfterIsWaitedOutOnTheServiceClock() async throws {
        let clock = TestClock()
        let busy = DeliveryOutcome.retryable(reason: .apns(.tooManyRequests), retryAfter: .seconds(30))
        let provider = Scripted(["a": [busy, .success(id: "later")]])
        let delivering = Task {
            await provider.deliver([.init(devices: ["a"])], random: { 0.5 }, clock: clock.serviceClock)
        }
        try await clock.waitForSleepers()
        #expect(provider.sent.count == 1)
        clock.advance(by: .seconds(29))
        #expect(clock.sleeping == 1, "29 s on: still waiting")
        #expect(provider.sent.count == 1)
        clock.advance(by: .seconds(1))
        let results = await delivering.value
        #expect(results.map(\.result) == [DeliveryResult(outcome: .success(id: "later"), attempts: 2)])
        #expect(provider.sent.count == 2)
    }

    @Test func aCancelledWaitKeepsTheLastOutcome() async {
        let provider = Scripted(["a": [unavailable, .success(id: "never")]])
        let results = await provider.deliver(
            [.init(devices: ["a"])], random: { 0.5 },
            clock: ServiceClock(now: Date.init, sleep: { _ in throw CancellationError() }))
        #expect(results.map(\.result) == [DeliveryResult(outcome: unavailable, attempts: 1)])
        #expect(provider.unanswered == 1)
    }

    /// A list request (a vendor's) is sent again only to its devices worth it, as one request, no sooner than
    /// the longest Retry-After any of them asked for.
    @Test func aListIsRetriedNarrowedToItsRetryWorthyDevicesAsOneRequest() async {
        let later = DeliveryOutcome.retryable(reason: .apns(.tooManyRequests), retryAfter: .seconds(3))
        let provider = Scripted(
            batchLimit: 4,
            [
                "a": [.success(id: "a")], "b": [unavailable, .success(id: "b")], "c": [later, .success(id: "c")],
                "d": [.permanent(reason: .apns(.badDeviceToken))],
            ])
        let results = await provider.deliver([["a", "b", "c", "d"]])
        #expect(results.map(\.attempts) == [1, 2, 2, 1])
        #expect(results[1].outcome == .success(id: "b"))
        #expect(provider.sent == [[["a", "b", "c", "d"]], [["b", "c"]]])
        #expect(provider.waited == [.seconds(3)])
    }

    /// One refused access token in a list makes the retry a credentials retry: at once, for all its pending
    /// devices, and only once.
    @Test func aRefusedTokenInAListRetriesThePendingDevicesAtOnce() async {
        let provider = Scripted(
            batchLimit: 2, ["a": [expired, .success(id: "a")], "b": [unavailable, .success(id: "b")]])
        let results = await provider.deliver([["a", "b"]])
        #expect(
            results == [
                DeliveryResult(outcome: .success(id: "a"), attempts: 2),
                DeliveryResult(outcome: .success(id: "b"), attempts: 2),
            ])
        #expect(provider.waited.isEmpty)
        #expect(provider.sent == [[["a", "b"]], [["a", "b"]]])
    }
}
