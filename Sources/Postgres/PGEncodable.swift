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
    public var pgText: String? {
        "{" + map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }
}
