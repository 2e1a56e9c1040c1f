import PushCore
import Testing

@testable import Reports

@Suite("Report ranges and parameters")
struct ReportRangeTests {
    @Test func defaultIsTheLastThirtyDaysUpToToday() throws {
        #expect(
            try ReportRange.resolve(from: nil, to: nil, today: "2026-03-01")
                == ReportRange(first: "2026-01-31", last: "2026-03-01"))
        #expect(
            try ReportRange.resolve(from: nil, to: "2026-01-30", today: "2026-03-01")
                == ReportRange(first: "2026-01-01", last: "2026-01-30"))
        #expect(
            try ReportRange.resolve(from: "2026-02-10", to: nil, today: "2026-03-01")
                == ReportRange(first: "2026-02-10", last: "2026-03-01"))
        #expect(
            try ReportRange.resolve(from: "2024-02-29", to: "2024-02-29", today: "2026-03-01")
                == ReportRange(first: "2024-02-29", last: "2024-02-29"))
    }

    @Test(arguments: ["2026-02-30", "2026-2-03", "20260203", "2026-13-01", "yesterday", "", "2026-02-03T00:00"])
    func malformedOrImpossibleDaysAreParameterErrors(text: String) {
        #expect(throws: LeanError.self) { try ReportRange.resolve(from: text, to: nil, today: "2026-03-01") }
        do {
            _ = try ReportRange.resolve(from: nil, to: text, today: "2026-03-01")
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.code == 1)
            #expect(error.message.contains("YYYY-MM-DD"))
        }
    }

    @Test func aRangeEndingBeforeItStartsIsRefused() {
        #expect(
            throws: LeanError.invalidParameter(
                "The range is empty: from (2026-03-02) is after to (2026-03-01).")
        ) {
            try ReportRange.resolve(from: "2026-03-02", to: "2026-03-01", today: "2026-03-05")
        }
    }

    @Test func namesFormatsAndGroupingsAreChecked() throws {
        #expect(try ReportName.parse("billing") == .billing)
        #expect(throws: LeanError.self) { try ReportName.parse("secrets") }
        #expect(try ReportFormat.parse("HTML") == .html)
        #expect(throws: LeanError.self) { try ReportFormat.parse("xml") }
        #expect(try OpensGrouping.parse("notification") == .notification)
        #expect(throws: LeanError.self) { try OpensGrouping.parse("week") }
        #expect(ReportFormat.csv.contentType.hasPrefix("text/csv"))
    }
}
