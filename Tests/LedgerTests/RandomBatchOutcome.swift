import PushCore

extension BatchDelivered {
    /// A delivered batch of `count` targets split at random, as a sender could record it: some failed with one
    /// of `reasons` (dead tokens when it is "Unregistered"), now and then some queued for the own channel, and
    /// the successes spread over iOS, Windows and Android.
    static func random(
        objectId: String, batch: Int64, count: Int64, at: String, reasons: [String], using rng: inout SeededRandom
    ) -> BatchDelivered {
        func draw(_ n: Int64) -> Int64 { Int64(rng.next() % UInt64(n)) }
        let errors = draw(count + 1)
        let queued = draw(4) == 0 ? draw(count - errors + 1) : 0
        let successes = count - errors - queued
        let ios = draw(successes + 1)
        let windows = draw(successes - ios + 1)
        let reason = reasons[Int(draw(Int64(reasons.count)))]
        return BatchDelivered(
            objectId: objectId, batch: batch, at: at, successes: successes, iosSuccesses: ios,
            androidSuccesses: successes - ios - windows, windowsSuccesses: windows, errors: errors,
            invalidTokens: reason == "Unregistered" ? errors : 0, reasons: errors > 0 ? [reason: errors] : [:],
            failures: [:], queued: queued > 0 ? queued : nil)
    }
}
