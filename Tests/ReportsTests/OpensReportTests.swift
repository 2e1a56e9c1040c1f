import Foundation
import PushCore
import Reports
import TestEnvironment
import TestSupport
import Testing

@Suite("Opens report", .requiresPostgreSQL)
struct OpensReportTests {
    /// 2026-11-02 in Shanghai runs from 2026-11-01T16:00Z: p0 (15:00Z) is the day before, p1 (17:00Z) is in.
    @Test func perPushRowsFollowTheAppsDayAndSpreadTimeToOpen() async throws {
        let f = try await ReportFixture.make()
        let json = try await f.run(.opens, from: "2026-11-02", to: "2026-11-02", format: .json)
        #expect(
            json == """
                [
                {"createdAt":"2026-11-01T17:00:00.000Z","devices":10,"medianSecondsToOpen":700,"notificationId":"n1","objectId":"p1","openRate":0.375,"opens":5,"successes":8,"timeToOpen":{"later":1,"under10m":0,"under1h":1,"under1m":1,"under24h":0,"under6h":0,"unknown":0},"uniqueOpens":3,"vendorSuccesses":{}},
                {"createdAt":"2026-11-02T03:00:00.000Z","devices":4,"medianSecondsToOpen":3,"notificationId":"n1","objectId":"p2","openRate":0.3333,"opens":1,"successes":3,"timeToOpen":{"later":0,"under10m":0,"under1h":0,"under1m":1,"under24h":0,"under6h":0,"unknown":0},"uniqueOpens":1,"vendorSuccesses":{}},
                {"createdAt":"2026-11-02T10:00:00.000Z","devices":0,"medianSecondsToOpen":null,"notificationId":null,"objectId":"p3","openRate":0,"opens":0,"successes":0,"timeToOpen":{"later":0,"under10m":0,"under1h":0,"under1m":0,"under24h":0,"under6h":0,"unknown":0},"uniqueOpens":0,"vendorSuccesses":{}}
                ]

                """)
        let earlier = try await f.run(.opens, from: "2026-11-01", to: "2026-11-01", format: .json)
        #expect(try JSON.parse(earlier).arrayValue?.compactMap { $0["objectId"]?.stringValue } == ["p0"])
    }

    @Test func byNotificationSumsItsPushes() async throws {
        let f = try await ReportFixture.make()
        let rows =
            try JSON.parse(
                try await f.run(
                    .opens, from: "2026-11-02", to: "2026-11-02", by: .notification,
                    format: .json)
            ).arrayValue ?? []
        #expect(rows.count == 2)
        let n1 = try #require(rows.first)
        #expect(n1["notificationId"] == "n1")
        #expect(n1["pushes"] == 2)
        #expect(n1["devices"] == 14)
        #expect(n1["successes"] == 11)
        #expect(n1["uniqueOpens"] == 4)
        #expect(n1["openRate"] == .double(0.3636))
        // The median of 3, 30, 700 and 90000 seconds.
        #expect(n1["medianSecondsToOpen"] == 365)
        #expect(rows[1]["notificationId"] == .null)
    }

    @Test func byDayGivesPlatformsAndTheHtmlChartsTheDailyRate() async throws {
        let f = try await ReportFixture.make()
        let csv = try await f.run(.opens, from: "2026-11-02", to: "2026-11-03", by: .day, format: .csv)
        #expect(
            csv == "day,platform,successes,opens,uniqueOpens,openRate,appOpens\r\n"
                + "2026-11-02,android,3,1,1,0.3333,2\r\n"
                + "2026-11-02,ios,8,5,3,0.3750,7\r\n"
                + "2026-11-03,ios,0,0,0,0.0000,1\r\n")
        let html = try await f.run(.opens, from: "2026-11-02", to: "2026-11-03", format: .html)
        #expect(html.contains("<svg"))
        // 4 unique opens of 11 successes on 2026-11-02 over both platforms.
        #expect(html.contains(">36.36%</text>"))
        #expect(html.contains("<title>ios 2026-11-02: 37.50%</title>"))
        #expect(html.contains("<td>p1</td>"))
        try HTMLWellFormedness.check(html)
    }
}
