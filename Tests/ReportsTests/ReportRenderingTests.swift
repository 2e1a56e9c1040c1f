import Foundation
import PushCore
import Testing

@testable import Reports

@Suite("Report renderers")
struct ReportRenderingTests {
    static let table = ReportTable(
        columns: ["name", "amount", "rate", "detail"],
        rows: [
            [.text("plain"), .money(Fen(6_050)), .ratio(0.375), .object(["a": 1])],
            [.text("has, comma \"and\" quote\nand newline"), .money(Fen(5)), .ratio(0), .null],
        ],
        totals: [.text("total"), .money(Fen(6_055)), .null, .null])

    @Test func jsonIsOneArrayOfRowObjectsWithoutTotals() throws {
        let text = try ReportDocument(title: "t", subtitle: "s", tableTitle: "x", table: Self.table).render(.json)
        #expect(
            text == """
                [
                {"amount":60.5,"detail":{"a":1},"name":"plain","rate":0.375},
                {"amount":0.05,"detail":null,"name":"has, comma \\"and\\" quote\\nand newline","rate":0}
                ]

                """)
        #expect(try JSON.parse(text).arrayValue?.count == 2)
    }

    @Test func csvQuotesPerRFC4180AndEndsWithTheTotalsLine() throws {
        let text = try ReportDocument(title: "t", subtitle: "s", tableTitle: "x", table: Self.table).render(.csv)
        #expect(
            text == "name,amount,rate,detail\r\n"
                + "plain,60.50,0.3750,\"{\"\"a\"\":1}\"\r\n"
                + "\"has, comma \"\"and\"\" quote\nand newline\",0.05,0.0000,\r\n"
                + "total,60.55,,\r\n")
    }

    @Test func tableAlignsColumns() throws {
        let t = ReportTable(
            columns: ["day", "charge"], rows: [[.text("2026-11-01"), .money(Fen(100))]],
            totals: [.text("total"), .money(Fen(12_345))])
        let text = try ReportDocument(title: "t", subtitle: "s", tableTitle: "x", table: t).render(.table)
        #expect(
            text == """
                day         charge
                ----------  ------
                2026-11-01    1.00
                ----------  ------
                total       123.45

                """)
    }

    @Test func htmlEscapesEveryTextAndKeepsOnlyInlineResources() throws {
        let hostile = ReportTable(columns: ["who"], rows: [[.text("<script>alert('x')</script> & {{table}}")]])
        let chart = SVGChart(
            title: "A <b>chart</b>", kind: .bars, categories: ["<d>"],
            series: [SVGChart.Series(name: "n", values: [3], labels: ["3 & more"])])
        let html = try ReportDocument(
            title: "T<i>", subtitle: "S&", tableTitle: "rows", table: hostile, charts: [chart]
        ).render(.html)
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; {{table}}"))
        #expect(html.contains("<title>T&lt;i&gt;</title>"))
        #expect(html.contains("A &lt;b&gt;chart&lt;/b&gt;"))
        #expect(html.contains("3 &amp; more"))
        #expect(html.contains("<svg"))
        // The svg namespace is a name, not a fetch; nothing else may point at the network.
        let withoutNamespace = html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
        #expect(!withoutNamespace.contains("http:") && !withoutNamespace.contains("https:"))
        #expect(!html.contains("<link") && !html.contains("@import") && !html.contains("url("))
    }

    @Test func ratesRoundToFourDecimalsAndAreZeroWithoutSuccesses() {
        #expect(ReportValue.rate(1, of: 3) == .ratio(0.3333))
        #expect(ReportValue.rate(2, of: 3) == .ratio(0.6667))
        #expect(ReportValue.rate(5, of: 0) == .ratio(0))
        #expect(ReportValue.ratio(0.6667).text == "0.6667")
    }

    @Test func appSecretsAreRedactedAtAnyDepth() {
        let detail: JSON = [
            "name": "shop", "appKey": "k1", "masterKey": "m1",
            "settings": ["timezone": "UTC", "apns.key_id": "KID", "fcm.client_secret": "s"],
            "set": ["apns.topic": "com.x", "apns.key_file": "/secret.p8"], "unset": ["apns.key_id"],
        ]
        let redacted = AuditRedaction.redact(detail, action: "AppCreated")
        #expect(
            redacted == [
                "name": "shop", "appKey": "***", "masterKey": "***",
                "settings": ["timezone": "UTC", "apns.key_id": "***", "fcm.client_secret": "***"],
                "set": ["apns.topic": "com.x", "apns.key_file": "***"], "unset": ["apns.key_id"],
            ])
        #expect(
            AuditRedaction.redact(["fields": ["deviceToken": "abc"]], action: "InstallationCreated")
                == ["fields": ["deviceToken": "abc"]])
    }
}
