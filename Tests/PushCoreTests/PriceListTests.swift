import PushCore
import Testing

@Suite("Price list (SPEC §9)")
struct PriceListTests {
    @Test(
        arguments: [
            (0, 0), (1, 0), (600, 0),
            (601, 6_000), (1_200, 6_000),
            (1_201, 9_000), (1_800, 9_000), (1_801, 12_000),
            (9_000, 45_000), (9_001, 48_000), (9_600, 48_000),
            // Above the last step of the list the top price holds (documented decision).
            (9_601, 48_000), (20_000, 48_000),
        ] as [(Int64, Int64)])
    func rateChargeFollowsThePeakSteps(peak: Int64, fen: Int64) {
        #expect(PriceList.rateChargeFen(peakCallsPerMinute: peak) == fen)
    }

    @Test(
        arguments: [
            (0, 0), (999_999, 0), (1_000_000, 0),
            (1_000_001, 50), (1_010_000, 50), (1_010_001, 100),
            (2_000_000, 5_000), (2_000_001, 5_050),
        ] as [(Int64, Int64)])
    func pushChargeCountsStartedBlocksBeyondTheFreeMillion(pushes: Int64, fen: Int64) {
        #expect(PriceList.pushChargeFen(pushes: pushes) == fen)
    }

    @Test func fenPrintWithTwoDecimalsAndStayExactInJSON() {
        #expect(Fen(6_000).yuanText == "60.00")
        #expect(Fen(50).yuanText == "0.50")
        #expect(Fen(5).yuanText == "0.05")
        #expect(Fen(-105).yuanText == "-1.05")
        #expect(Fen(6_050).yuanJSON.encoded() == "60.5")
        #expect(Fen(48_000).yuanJSON.encoded() == "480")
        // Ten thousand half-yuan charges add up exactly.
        let total = (0..<10_000).reduce(Fen.zero) { sum, _ in sum + Fen(50) }
        #expect(total.yuanText == "5000.00")
    }
}
