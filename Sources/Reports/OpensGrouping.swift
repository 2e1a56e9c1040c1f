import PushCore

/// The rows of the opens report: per push (default), per day and platform, or per notification id.
/// JSON output stays one array of one kind of row, so the grouping is chosen rather than mixed.
public enum OpensGrouping: String, Sendable, CaseIterable {
    case push, day, notification

    public static func parse(_ text: String) throws(LeanError) -> OpensGrouping {
        guard let grouping = OpensGrouping(rawValue: text.lowercased()) else {
            throw LeanError.invalidParameter("Unknown grouping \(text); use push, day or notification.")
        }
        return grouping
    }
}
