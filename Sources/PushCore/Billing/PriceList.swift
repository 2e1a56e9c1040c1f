/// LeanCloud's push price list (SPEC §9), applied to one day's usage. Amounts are whole fen (1/100 CNY),
/// so every charge and every total is exact; renderers divide by 100 only when printing.
public enum PriceList {
    /// Calls per minute covered by each rate step.
    public static let rateStep: Int64 = 600
    /// The first charged step (601–1200/min) costs ¥60 a day…
    public static let firstRateStepFen: Int64 = 6_000
    /// …and every further 600/min step ¥30 more…
    public static let furtherRateStepFen: Int64 = 3_000
    /// …up to ¥480 at 9001–9600/min. The price list stops there; a day above 9600/min is charged the top
    /// step too (our decision: the list has no higher step, and the rate limit normally prevents such days).
    public static let maximumRateFen: Int64 = 48_000

    /// Devices a day that are free of charge.
    public static let freePushesPerDay: Int64 = 1_000_000
    /// Pushes beyond the free ones are charged per started block of 10,000 devices…
    public static let pushBlock: Int64 = 10_000
    /// …at ¥0.5 a block.
    public static let pushBlockFen: Int64 = 50

    /// The day's rate charge for its peak calls per minute: ceil(peak / 600) = k steps cost
    /// ¥60 + ¥30·(k − 2) for k ≥ 2, nothing for k ≤ 1.
    public static func rateChargeFen(peakCallsPerMinute peak: Int64) -> Int64 {
        let steps = ceilDiv(max(peak, 0), rateStep)
        guard steps >= 2 else { return 0 }
        return min(firstRateStepFen + furtherRateStepFen * (steps - 2), maximumRateFen)
    }

    /// The day's push charge: every started 10,000 devices beyond the free million costs ¥0.5.
    public static func pushChargeFen(pushes: Int64) -> Int64 {
        let charged = pushes - freePushesPerDay
        guard charged > 0 else { return 0 }
        return ceilDiv(charged, pushBlock) * pushBlockFen
    }

    static func ceilDiv(_ a: Int64, _ b: Int64) -> Int64 { (a + b - 1) / b }
}
