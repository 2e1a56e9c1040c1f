import PushCore

/// One cell of a report. The kind decides how each format prints it: money is exact fen, shown with two
/// decimals in text and as a JSON number; objects are compact JSON text outside JSON.
public enum ReportValue: Sendable, Hashable {
    case null
    case int(Int64)
    case money(Fen)
    /// A fraction already rounded to 4 decimals (open rates).
    case ratio(Double)
    case number(Double)
    case text(String)
    case bool(Bool)
    case object(JSON)

    public var json: JSON {
        switch self {
        case .null: .null
        case .int(let i): .int(i)
        case .money(let fen): fen.yuanJSON
        case .ratio(let r), .number(let r): .double(r)
        case .text(let s): .string(s)
        case .bool(let b): .bool(b)
        case .object(let o): o
        }
    }

    /// The text form of csv, table and html cells (empty for null).
    public var text: String {
        switch self {
        case .null: ""
        case .int(let i): String(i)
        case .money(let fen): fen.yuanText
        case .ratio(let r): Self.fixed(r, decimals: 4)
        case .number(let n): JSON.double(n).encoded()
        case .text(let s): s
        case .bool(let b): b ? "true" : "false"
        case .object(let o): o.encoded()
        }
    }

    /// Numbers are right-aligned in tables.
    public var isNumeric: Bool {
        switch self {
        case .int, .money, .ratio, .number: true
        default: false
        }
    }

    /// Rounds half away from zero to `decimals` places, as people expect of a printed rate.
    public static func rounded(_ value: Double, decimals: Int) -> Double {
        let scale = pow10(decimals)
        return (value * scale).rounded(.toNearestOrAwayFromZero) / scale
    }

    /// `numerator / denominator` rounded to 4 decimals, 0 when there is nothing to divide by.
    public static func rate(_ numerator: Int64, of denominator: Int64) -> ReportValue {
        .ratio(denominator > 0 ? rounded(Double(numerator) / Double(denominator), decimals: 4) : 0)
    }

    static func fixed(_ value: Double, decimals: Int) -> String {
        let scaled = Int64((value * pow10(decimals)).rounded(.toNearestOrAwayFromZero))
        let sign = scaled < 0 ? "-" : ""
        let magnitude = String(scaled.magnitude)
        let padded = String(repeating: "0", count: max(0, decimals + 1 - magnitude.count)) + magnitude
        return sign + padded.dropLast(decimals) + "." + padded.suffix(decimals)
    }

    private static func pow10(_ n: Int) -> Double { (0..<n).reduce(1.0) { value, _ in value * 10 } }
}
