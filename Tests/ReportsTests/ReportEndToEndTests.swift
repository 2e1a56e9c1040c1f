import Foundation
import PushCore
import Reports
import TestEnvironment
import TestSupport
import Testing

/// The real binary: `GET /1.1/reports/:name` and `pushledger report` print what the runner renders.
@Suite("Reports over REST and the CLI", .requiresPostgreSQL, .serialized)
struct ReportEndToEndTests {
    @Test func restNeedsTheMasterKeyAndAnswersEachFormatWithItsContentType() async throws {
        let f = try await ReportFixture.make()
        // Without serve's retention job: it closes the fixture's still-open day at a moment of its choosing,
        // which would change the report between the REST answer and the runner's rendering it is compared to.
        let server = try ServerProcess(databaseURL: f.db.url, extraArguments: ["--retention-interval-seconds", "0"])
        defer { server.stop() }
        let master = TestHTTP(
            baseURL: server.baseURL, headers: ["X-LC-Id": "rep", "X-LC-Key": "plainMasterKey456,master"])
        let client = TestHTTP(baseURL: server.baseURL, headers: ["X-LC-Id": "rep", "X-LC-Key": "plainAppKey123"])

        let refused = try await client.send("GET", "/1.1/reports/billing")
        #expect(refused.status == 403)
        #expect(refused.body["code"] == 119)

        let range = "from=2026-11-01&to=2026-11-03"
        let json = try await master.send("GET", "/1.1/reports/billing?\(range)")
        #expect(json.status == 200)
        #expect(json.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(json.text == (try await f.run(.billing, from: "2026-11-01", to: "2026-11-03", format: .json)))

        let csv = try await master.send("GET", "/1.1/reports/billing?\(range)&format=csv")
        #expect(csv.headers["content-type"]?.hasPrefix("text/csv") == true)
        #expect(csv.text.hasSuffix("total,52010,9601,4010002,3998999,570.00,51.50,621.50,\r\n"))

        let html = try await master.send(
            "GET", "/1.1/reports/opens?from=2026-11-02&to=2026-11-02&format=html&by=notification")
        #expect(html.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(html.text.contains("<td>n1</td>"))

        let table = try await master.send("GET", "/1.1/reports/opens?from=2026-11-02&to=2026-11-02&format=table&by=day")
        #expect(table.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(table.text.hasPrefix("day"))

        for (path, status, code) in [
            ("/1.1/reports/billing?from=2026-11-31", 400, 1), ("/1.1/reports/billing?format=xml", 400, 1),
            ("/1.1/reports/opens?by=week", 400, 1), ("/1.1/reports/salaries", 404, 101),
            ("/1.1/reports/billing?from=2026-11-03&to=2026-11-01", 400, 1),
        ] {
            let bad = try await master.send("GET", path)
            #expect(bad.status == status, "\(path)")
            #expect(bad.body["code"] == .int(Int64(code)), "\(path)")
            #expect(bad.body["error"]?.stringValue?.isEmpty == false, "\(path)")
        }
    }

    @Test func cliPrintsWritesFilesAndFailsClearly() async throws {
        let f = try await ReportFixture.make()
        let printed = try ServerProcess.command(
            ["report", "billing", "--app", "rep", "--from", "2026-11-02", "--to", "2026-11-02", "--format", "json"],
            databaseURL: f.db.url)
        #expect(printed.status == 0)
        #expect(printed.output == (try await f.run(.billing, from: "2026-11-02", to: "2026-11-02", format: .json)))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: file) }
        let written = try ServerProcess.command(
            [
                "report", "opens", "--app", "rep", "--from", "2026-11-02", "--to", "2026-11-03", "--format", "html",
                "--out", file.path,
            ], databaseURL: f.db.url)
        #expect(written.status == 0)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("<svg"))

        let unknown = try ServerProcess.command(["report", "billing", "--app", "nope"], databaseURL: f.db.url)
        #expect(unknown.status != 0)
        #expect(unknown.output.contains("No app with id nope."))
        let badDate = try ServerProcess.command(
            ["report", "audit", "--app", "rep", "--to", "22/11/2026"], databaseURL: f.db.url)
        #expect(badDate.status != 0)
        #expect(badDate.output.contains("Invalid to date 22/11/2026: use YYYY-MM-DD."))
    }
}
