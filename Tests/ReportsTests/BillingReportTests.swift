import Foundation
import PushCore
import Reports
import TestEnvironment
import TestSupport
import Testing

@Suite("Billing report", .requiresPostgreSQL)
struct BillingReportTests {
    @Test func jsonRowsCarryThePriceListPerDay() async throws {
        let f = try await ReportFixture.make()
        let json = try await f.run(.billing, from: "2026-11-01", to: "2026-11-03", format: .json)
        #expect(
            json == """
                [
                {"calls":10,"charge":0,"closed":true,"day":"2026-11-01","peakCallsPerMinute":600,"pushCharge":0,"pushes":1000000,"rateCharge":0,"successes":999000},
                {"calls":2000,"charge":91,"closed":true,"day":"2026-11-02","peakCallsPerMinute":1201,"pushCharge":1,"pushes":1010001,"rateCharge":90,"successes":1000000},
                {"calls":50000,"charge":530.5,"closed":false,"day":"2026-11-03","peakCallsPerMinute":9601,"pushCharge":50.5,"pushes":2000001,"rateCharge":480,"successes":1999999}
                ]

                """)
    }

    @Test func csvAndTableEndWithTotals() async throws {
        let f = try await ReportFixture.make()
        let csv = try await f.run(.billing, from: "2026-11-01", to: "2026-11-03", format: .csv)
        #expect(
            csv == "day,calls,peakCallsPerMinute,pushes,successes,rateCharge,pushCharge,charge,closed\r\n"
                + "2026-11-01,10,600,1000000,999000,0.00,0.00,0.00,true\r\n"
                + "2026-11-02,2000,1201,1010001,1000000,90.00,1.00,91.00,true\r\n"
                + "2026-11-03,50000,9601,2000001,1999999,480.00,50.50,530.50,false\r\n"
                + "total,52010,9601,4010002,3998999,570.00,51.50,621.50,\r\n")
        let table = try await f.run(.billing, from: "2026-11-01", to: "2026-11-03", format: .table)
        let last = table.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("total"))
        #expect(last.hasSuffix("621.50"))
        #expect(table.contains("2026-11-02   2000                1201"))
    }

    @Test func htmlHasChartsAndTotals() async throws {
        let f = try await ReportFixture.make()
        let html = try await f.run(.billing, from: "2026-11-01", to: "2026-11-03", format: .html)
        #expect(html.components(separatedBy: "<svg").count - 1 == 3)
        #expect(html.contains("<tr class=\"total\"><td>total</td>"))
        #expect(html.contains("<td class=\"num\">621.50</td>"))
        #expect(html.contains(">1010001</text>"))
        try HTMLWellFormedness.check(html)
    }

    @Test func unknownAppsAndBadParametersAreLeanCloudErrors() async throws {
        let f = try await ReportFixture.make()
        await #expect(throws: LeanError.notFound("No app with id nope.")) {
            try await f.runner.run(ReportRequest(name: .billing, appId: "nope"))
        }
        await #expect(throws: LeanError.self) {
            try await f.runner.run(ReportRequest(name: .billing, appId: ReportFixture.appId, from: "2026-11-31"))
        }
        await #expect(throws: LeanError.invalidParameter("Grouping (by) applies to the opens report only.")) {
            try await f.runner.run(ReportRequest(name: .billing, appId: ReportFixture.appId, grouping: .day))
        }
    }
}
