import PushCore

/// The simulator reads and writes JSON with PushCore's reader and writer, the one the server uses, so there is
/// one JSON implementation in the package. Objects come out with sorted keys. These helpers keep its
/// builders short.
extension JSON {
    /// An object from members in the order they are listed; a repeated name keeps its first value.
    static func members(_ members: [(key: String, value: JSON)]) -> JSON {
        .object(Dictionary(members, uniquingKeysWith: { first, _ in first }))
    }

    static func integer(_ value: Int) -> JSON { .int(Int64(value)) }

    var isObject: Bool { objectValue != nil }

    /// An integral number that fits `Int` (JWT times, counts, settings).
    var integerValue: Int? { intValue.flatMap { Int(exactly: $0) } }

    /// The strings of an array, skipping other elements; empty for anything but an array. The vendor look-alikes
    /// read registration ids with it even from requests they refuse, to record them under each id.
    var strings: [String] { self.arrayValue?.compactMap(\.stringValue) ?? [] }
}
