import Postgres
import PushCore

/// Billing (SPEC §9): the app's daily usage with the price list applied, totals, and charts of daily
/// pushes, calls and peak rate.
enum BillingReport {
    static let columns = [
        "day", "calls", "peakCallsPerMinute", "pushes", "successes", "rateCharge", "pushCharge", "charge", "closed",
    ]

    static func build(_ context: ReportContext) async throws -> ReportDocument {
        let rows = try await ReportDefinitions.run("billing", binds: context.binds, on: context.pool)
        var table: [[ReportValue]] = []
        var calls: Int64 = 0, pushes: Int64 = 0, successes: Int64 = 0
        var rateTotal = Fen.zero, pushTotal = Fen.zero
        var peakMax: Int64 = 0
        for row in rows {
            let peak = try row.int64("peak_calls_per_minute"), devices = try row.int64("pushes")
            let rate = Fen(PriceList.rateChargeFen(peakCallsPerMinute: peak))
            let push = Fen(PriceList.pushChargeFen(pushes: devices))
            let dayCalls = try row.int64("calls"), daySuccesses = try row.int64("successes")
            table.append([
                .text(try row.string("day")), .int(dayCalls), .int(peak), .int(devices), .int(daySuccesses),
                .money(rate), .money(push), .money(rate + push), .bool(try row.bool("closed")),
            ])
            calls += dayCalls
            pushes += devices
            successes += daySuccesses
            rateTotal += rate
            pushTotal += push
            peakMax = max(peakMax, peak)
        }
        // The totals row's peak is the highest day's: peaks of different days do not add up.
        let totals: [ReportValue] = [
            .text("total"), .int(calls), .int(peakMax), .int(pushes), .int(successes),
            .money(rateTotal), .money(pushTotal), .money(rateTotal + pushTotal), .null,
        ]
        let result = ReportTable(columns: columns, rows: table, totals: totals)
        let days = result.column("day").map(\.text)
        func series(_ key: String, _ name: String) -> SVGChart.Series {
            let values = result.column(key)
            return SVGChart.Series(name: name, values: values.map { Double($0.text) ?? 0 }, labels: values.map(\.text))
        }
        return ReportDocument(
            title: "Billing — \(context.appId)",
            subtitle: "\(context.subtitle); charges in CNY; "
                + "total \(result.totals![7].text)",
            tableTitle: "Daily usage and charges",
            table: result,
            charts: [
                SVGChart(
                    title: "Pushes (devices) per day", kind: .bars, categories: days,
                    series: [series("pushes", "pushes")]),
                SVGChart(
                    title: "Push API calls per day", kind: .bars, categories: days,
                    series: [series("calls", "calls")]),
                SVGChart(
                    title: "Peak calls per minute", kind: .lines, categories: days,
                    series: [series("peakCallsPerMinute", "peak calls/min")]),
            ])
    }
}
