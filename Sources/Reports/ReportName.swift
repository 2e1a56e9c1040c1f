import PushCore

/// The reports of SPEC §9.
public enum ReportName: String, Sendable, CaseIterable {
    case billing, opens, audit

    public static func parse(_ text: String) throws(LeanError) -> ReportName {
        guard let name = ReportName(rawValue: text) else {
            throw LeanError.notFound("No report named \(text); reports are billing, opens and audit.")
        }
        return name
    }
}
