import Foundation
import HTTPEdge
import HTTPTypes
import Hummingbird
import NIOCore
import PushCore
import Reports

/// The report definitions of `reports/` on a page: their charts (drawn by `SVGChart`, the html reports'
/// drawer) with each chart's figures as JSON beside it, the cost estimate, the table, and CSV download.
extension ConsoleRoutes {
    func reportPage(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let chrome = try chrome(request, context, section: "reports")
        let name = try ReportName.parse(nonEmpty(request.query("name")) ?? "billing")
        guard name != .audit else { return Response.redirect(to: "/console/audit", type: .found) }
        let document = try await run(name, request, context)
        var charts = document.charts
        if name == .opens && (request.query("by") ?? "push") == "push", let perPush = Self.perPushChart(document) {
            charts.insert(perPush, at: 0)
        }
        var values: [String: Any] = [
            "name": name.rawValue, "billing": name == .billing, "opens": name == .opens,
            "title": document.title, "subtitle": document.subtitle, "tableTitle": document.tableTitle,
            "table": document.htmlTable, "from": request.query("from") ?? "", "to": request.query("to") ?? "",
            "by": request.query("by") ?? "push", "byOptions": Self.groupings(request.query("by")),
            "charts": charts.map { chart -> [String: Any] in
                ["svg": chart.svgFigure(), "data": Self.scriptSafe(chart.dataJSON.encoded())]
            },
            "csv": Self.downloadLink(name, request), "empty": document.table.rows.isEmpty,
        ]
        if name == .billing, let totals = document.table.totals {
            let column = { (key: String) in document.table.columns.firstIndex(of: key).map { totals[$0].text } ?? "" }
            values["cost"] = [
                "charge": column("charge"), "rateCharge": column("rateCharge"), "pushCharge": column("pushCharge"),
                "pushes": column("pushes"), "peak": column("peakCallsPerMinute"),
            ]
        }
        return pages.page("reports", title: document.title, values, chrome: chrome)
    }

    func reportCSV(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let name = try ReportName.parse(nonEmpty(request.query("name")) ?? "billing")
        let document = try await run(name, request, context)
        var fields = HTTPFields()
        fields[.contentType] = ReportFormat.csv.contentType
        fields[HTTPField.Name("Content-Disposition")!] = "attachment; filename=\"\(name.rawValue).csv\""
        return Response(
            status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: try document.render(.csv))))
    }

    func run(_ name: ReportName, _ request: Request, _ context: AppRequestContext) async throws -> ReportDocument {
        let app = try context.requireMaster()
        let grouping = try name == .opens ? nonEmpty(request.query("by")).map(OpensGrouping.parse) : nil
        return try await services.reports.run(
            ReportRequest(
                name: name, appId: app.appId, from: nonEmpty(request.query("from")), to: nonEmpty(request.query("to")),
                grouping: grouping))
    }

    /// Open rate per push in %, from the rows of the opens report (its `openRate` column, as the JSON prints it).
    static func perPushChart(_ document: ReportDocument) -> SVGChart? {
        let ids = document.table.column("objectId").map(\.text)
        guard !ids.isEmpty else { return nil }
        let rates = document.table.column("openRate").map { value -> Double in
            if case .ratio(let r) = value { return ReportValue.rounded(r * 100, decimals: 2) }
            return 0
        }
        return SVGChart(
            title: "Open rate per push in % (unique opens / successes)", kind: .bars,
            categories: ids.map { String($0.prefix(8)) },
            series: [SVGChart.Series(name: "open rate", values: rates, labels: rates.map { "\($0)%" })])
    }

    static func groupings(_ selected: String?) -> [[String: Any]] {
        OpensGrouping.allCases.map { ["value": $0.rawValue, "selected": $0.rawValue == (selected ?? "push")] }
    }

    static func downloadLink(_ name: ReportName, _ request: Request) -> String {
        QueryLink.make(
            "/console/reports/download", ["name": name.rawValue], carrying: ["from", "to", "by"], from: request)
    }

    /// JSON inside `<script type="application/json">`: `<` escaped so no value can close the element.
    static func scriptSafe(_ json: String) -> String { json.replacingOccurrences(of: "<", with: "\\u003c") }
}
