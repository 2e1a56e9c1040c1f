import Foundation
import PushCore

/// The inclusive days a report covers, as `YYYY-MM-DD` in the app's time zone. Without dates it is the
/// last 30 days up to today; with one date the other is derived from it.
public struct ReportRange: Sendable, Hashable {
    public let first: String
    public let last: String

    public static let defaultDays = 30

    public init(first: String, last: String) {
        self.first = first
        self.last = last
    }

    /// `today` is the app's current day, which only the database knows for its time zone.
    public static func resolve(from: String?, to: String?, today: String) throws(LeanError) -> ReportRange {
        let end = try day(to ?? today, parameter: to == nil ? "today" : "to")
        var start = calendar.date(byAdding: .day, value: -(defaultDays - 1), to: end)!
        if let from { start = try day(from, parameter: "from") }
        guard start <= end else {
            throw LeanError.invalidParameter(
                "The range is empty: from (\(format(start))) is after to (\(format(end))).")
        }
        return ReportRange(first: format(start), last: format(end))
    }

    /// A real calendar day written exactly as `YYYY-MM-DD` (so `2026-02-30` and `2026-2-3` are refused).
    static func day(_ text: String, parameter: String) throws(LeanError) -> Date {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        let widths = parts.map(\.count)
        guard widths == [4, 2, 2], text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") }),
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            let date = calendar.date(from: DateComponents(year: y, month: m, day: d)),
            calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: y, month: m, day: d)
        else {
            throw LeanError.invalidParameter("Invalid \(parameter) date \(text): use YYYY-MM-DD.")
        }
        return date
    }

    static func format(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// Plain day arithmetic: the days are already local to the app, so UTC avoids daylight-saving gaps.
    static let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()
}
