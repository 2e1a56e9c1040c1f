import HTTPEdge
import HTTPTypes
import Hummingbird
import NIOCore
import PushCore
import Reports

/// `GET /1.1/reports/:name?from=&to=&format=&by=` (SPEC §9): the CLI's reports for master-key clients, in
/// the requested format with its content type (JSON when none is asked for).
public struct ReportRoutes: Sendable {
    let reports: ReportRunner

    public init(reports: ReportRunner) { self.reports = reports }

    public func register(on router: some RouterMethods<AppRequestContext>) {
        router.get("reports/:name") { request, context in try await report(request, context) }
    }

    func report(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        let name = try ReportName.parse(try context.parameters.require("name"))
        let format = try request.query("format").map(ReportFormat.parse) ?? .json
        let grouping = try request.query("by").map(OpensGrouping.parse)
        let document = try await reports.run(
            ReportRequest(
                name: name, appId: app.appId, from: nonEmpty(request.query("from")),
                to: nonEmpty(request.query("to")), grouping: grouping))
        var fields = HTTPFields()
        fields[.contentType] = format.contentType
        let body = ByteBuffer(string: try document.render(format))
        return Response(status: .ok, headers: fields, body: .init(byteBuffer: body))
    }

    /// `from=` with no value means "not given", as in a form left empty.
    private func nonEmpty(_ value: String?) -> String? { value?.isEmpty == false ? value : nil }
}
