import Foundation

/// A value sent to PostgreSQL as a text-format parameter; the SQL casts it where the type matters.
public protocol PGEncodable: Sendable {
    var pgText: String? { get }
}

extension String: PGEncodable { public var pgText: String? { self } }
extension Substring: PGEncodable { public var pgText: String? { String(self) } }
extension Int: PGEncodable { public var pgText: String? { String(self) } }
extension Int32: PGEncodable { public var pgText: String? { String(self) } }
extension Int64: PGEncodable { public var pgText: String? { String(self) } }
extension Double: PGEncodable { public var pgText: String? { "\(self)" } }
extension Bool: PGEncodable { public var pgText: String? { self ? "t" : "f" } }

extension Date: PGEncodable {
    /// Microsecond-precise UTC text that PostgreSQL reads as `timestamptz`.
    public var pgText: String? { PGTimestamp.format(self) }
}

extension Array: PGEncodable where Element == String {
    /// A PostgreSQL `text[]` literal.
    public var pgText: String? { PGArrayLiteral.text(lazy.map(Optional.some)) }
}

/// An array parameter whose elements may be NULL, as the array literal PostgreSQL reads: cast it to the
/// element type the statement needs (`\(PGNullableArray(times))::timestamptz[]`), so that the elements are
/// converted once, as parameters, rather than as a column of the statement.
public struct PGNullableArray: PGEncodable {
    public let elements: [String?]

    public init(_ elements: [String?]) { self.elements = elements }

    public var pgText: String? { PGArrayLiteral.text(elements) }
}

enum PGArrayLiteral {
    static func text<Elements: Collection<String?>>(_ elements: Elements) -> String {
        // Byte-wise: event data (tens of KB of JSON full of quotes) is sent this way, and Foundation's
        // replacingOccurrences was the fan-out's most expensive string operation.
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        for (i, element) in elements.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            guard var element else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            element.withUTF8 { utf8 in
                // The runs between quotes and backslashes are copied whole.
                var start = 0
                for (at, b) in utf8.enumerated() where b == UInt8(ascii: "\\") || b == UInt8(ascii: "\"") {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<at]))
                    bytes.append(UInt8(ascii: "\\"))
                    start = at
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
