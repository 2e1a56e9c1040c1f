import Foundation

/// The rows of one result, copied out of libpq so they outlive the `PGresult`. Values are text, as the
/// connection always asks for text format; typed accessors decode them.
public struct PGRows: Sendable, RandomAccessCollection {
    public let columns: [String]
    let values: [String?]
    public let affectedRows: Int

    init(columns: [String], values: [String?], affectedRows: Int) {
        self.columns = columns
        self.values = values
        self.affectedRows = affectedRows
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { columns.isEmpty ? 0 : values.count / columns.count }

    public subscript(position: Int) -> PGRow {
        PGRow(rows: self, offset: position * columns.count)
    }

    func columnIndex(_ name: String) -> Int? { columns.firstIndex(of: name) }
}

/// One row of a `PGRows`.
public struct PGRow: Sendable {
    let rows: PGRows
    let offset: Int

    public subscript(_ index: Int) -> String? { rows.values[offset + index] }

    public subscript(_ name: String) -> String? {
        guard let i = rows.columnIndex(name) else { return nil }
        return rows.values[offset + i]
    }

    public func string(_ name: String) throws(PGError) -> String {
        guard let v = self[name] else { throw Self.missing(name) }
        return v
    }

    public func int(_ name: String) throws(PGError) -> Int {
        guard let t = self[name], let v = Int(t) else { throw Self.missing(name) }
        return v
    }

    public func int64(_ name: String) throws(PGError) -> Int64 {
        guard let t = self[name], let v = Int64(t) else { throw Self.missing(name) }
        return v
    }

    public func optionalInt64(_ name: String) -> Int64? { self[name].flatMap { Int64($0) } }

    public func bool(_ name: String) throws(PGError) -> Bool {
        guard let t = self[name] else { throw Self.missing(name) }
        return t == "t"
    }

    public func date(_ name: String) throws(PGError) -> Date {
        guard let t = self[name], let d = PGTimestamp.parse(t) else { throw Self.missing(name) }
        return d
    }

    public func optionalDate(_ name: String) -> Date? { self[name].flatMap { PGTimestamp.parse($0) } }

    static func missing(_ name: String) -> PGError {
        PGError(kind: .protocolViolation, message: "column \(name) is missing, NULL or not decodable")
    }
}
