/// An exact amount of CNY in fen (1/100 yuan): billing adds these up without floating-point drift.
public struct Fen: Sendable, Hashable, Comparable, AdditiveArithmetic {
    public var value: Int64

    public init(_ value: Int64) { self.value = value }

    public static let zero = Fen(0)
    public static func + (a: Fen, b: Fen) -> Fen { Fen(a.value + b.value) }
    public static func - (a: Fen, b: Fen) -> Fen { Fen(a.value - b.value) }
    public static func < (a: Fen, b: Fen) -> Bool { a.value < b.value }

    /// Yuan with exactly two decimals (`60.00`, `0.50`, `-1.05`), for csv, tables and html.
    public var yuanText: String {
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude
        let cents = magnitude % 100
        return "\(sign)\(magnitude / 100).\(cents < 10 ? "0" : "")\(cents)"
    }

    /// Yuan as a JSON number; fen are whole, so the value is the nearest double to an exact decimal.
    public var yuanJSON: JSON {
        value % 100 == 0 ? .int(value / 100) : .double(Double(value) / 100)
    }
}
