import Foundation
import Reports
import TestEnvironment
import TestSupport
import Testing

/// Headless Chromium on this machine: `scripts/test` sets `PUSHLEDGER_REQUIRE_CHROMIUM=1`, so a missing
/// browser fails the run there instead of silently skipping the check.
enum Chromium {
    static var required: Bool { ProcessInfo.processInfo.environment["PUSHLEDGER_REQUIRE_CHROMIUM"] == "1" }

    static var path: String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        for dir in dirs {
            for name in ["chromium", "chromium-browser"] {
                let candidate = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// The DOM Chromium builds from the file, after parsing and layout, with network access refused.
    static func dumpDOM(_ file: URL, chromium: String, profile: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = [
            "90", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--user-data-dir=\(profile.path)", "--proxy-server=127.0.0.1:9", "--dump-dom", file.absoluteString,
        ]
        let output = profile.appendingPathComponent("dom.html")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        #expect(process.terminationStatus == 0, "chromium exited with \(process.terminationStatus)")
        return try String(contentsOf: output, encoding: .utf8)
    }
}

@Suite(
    "HTML reports in headless Chromium",
    .requiresPostgreSQL, .enabled(if: Chromium.path != nil || Chromium.required))
struct ChromiumRenderingTests {
    @Test func everyReportRendersWithItsChartsAndFigures() async throws {
        try await HeavyTests.exclusive {
            let chromium = try #require(
                Chromium.path, "chromium is required (PUSHLEDGER_REQUIRE_CHROMIUM=1) but not found")
            let f = try await ReportFixture.make()
            _ = try await AuditReportTests.history(f)
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            // Each report with the svg charts it must draw and figures that must survive into the DOM.
            let cases: [(ReportName, String?, Int, [String])] = [
                (.billing, "2026-11-01", 3, ["621.50", "530.50", ">1010001<", "Peak calls per minute"]),
                (.opens, "2026-11-02", 1, ["36.36%", "<td>p1</td>", "0.3750"]),
                (.audit, nil, 0, ["PushQuotaRefused", "10.9.9.9", "LeanCloud-iOS/13", "***"]),
            ]
            for (name, from, charts, figures) in cases {
                let html = try await f.run(name, from: from, to: from == nil ? nil : "2026-11-03", format: .html)
                let file = dir.appendingPathComponent("\(name.rawValue).html")
                try Data(html.utf8).write(to: file)
                let dom = try Chromium.dumpDOM(file, chromium: chromium, profile: dir)
                #expect(dom.contains("<table"), "\(name): no table in the DOM")
                #expect(dom.components(separatedBy: "<svg").count - 1 == charts, "\(name): wrong number of charts")
                if charts > 0 { #expect(dom.contains("<polyline") || dom.contains("<rect"), "\(name): empty chart") }
                for figure in figures { #expect(dom.contains(figure), "\(name): \(figure) missing from the DOM") }
            }
        }
    }
}
