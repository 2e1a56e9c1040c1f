import NIOCore
import Testing

@testable import Simulator

@Suite("Pure helpers")
struct UnitTests {
    @Test("the seeded generator repeats and spreads")
    func seededGenerator() {
        var first = SplitMix64(seed: 7)
        var second = SplitMix64(seed: 7)
        let a = (0..<1000).map { _ in first.nextUnit() }
        let b = (0..<1000).map { _ in second.nextUnit() }
        #expect(a == b)
        #expect(a.allSatisfy { $0 >= 0 && $0 < 1 })
        let low = a.filter { $0 < 0.5 }.count
        #expect(low > 400 && low < 600)
    }

    @Test("device tokens must be even-length hex")
    func deviceTokens() {
        #expect(HexDigits.isDeviceToken("00ff"[...]))
        #expect(HexDigits.isDeviceToken("ABCDEF"[...]))
        #expect(!HexDigits.isDeviceToken("abc"[...]))
        #expect(!HexDigits.isDeviceToken("zz"[...]))
        #expect(!HexDigits.isDeviceToken(""[...]))
    }

    @Test("form fields are percent- and plus-decoded")
    func formDecoding() {
        let fields = FormDecoding.decode("grant_type=urn%3Aietf%3Aparams&assertion=a.b.c&note=two+words"[...])
        #expect(fields == ["grant_type": "urn:ietf:params", "assertion": "a.b.c", "note": "two words"])
    }

    @Test("the first matching rule for the provider wins")
    func ruleMatching() {
        let settings = RuntimeSettings(SimulatorConfiguration())
        #expect(settings.rule(for: .apns, token: "bad0ff"[...])?.reason == "BadDeviceToken")
        #expect(settings.rule(for: .apns, token: "4290aa"[...])?.failingAttempts == 2)
        #expect(settings.rule(for: .fcm, token: "bad0ff"[...]) == nil)
        #expect(settings.rule(for: .fcm, token: "unregistered-x"[...])?.status == 404)
        #expect(settings.rule(for: .apns, token: "abcd"[...]) == nil)
    }

    @Test("per-token counters are bounded by maxCountedTokens")
    func counterBound() {
        var state = SimulatorState(seed: 1)
        let policy = RecordingPolicy(isEnabled: true, requestsPerToken: 0, maxCountedTokens: 3, maxRecordedTokens: 0)
        for index in 0..<10 {
            state.count(provider: .apns, token: "t\(index)", rejection: nil, recording: policy) {
                preconditionFailure("requestsPerToken is 0, nothing is recorded")
            }
        }
        #expect(state.distinctTokens == 3)
        #expect(state.apns.accepted == 10)
    }
}
