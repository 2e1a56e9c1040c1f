/// A field name from a query, validated and split on dots (`profile.city` → `["profile", "city"]`). Names are
/// ASCII letters, digits and underscores, not starting with a digit, so that nothing surprising reaches even the
/// bound parameters; they are still never spliced into SQL text.
struct FieldPath: Sendable, Hashable {
    let name: String
    let segments: [String]

    static let maxLength = 256

    init(_ name: String) throws(QueryError) {
        guard !name.isEmpty, name.utf8.count <= FieldPath.maxLength else {
            throw .invalidQuery("invalid field name '\(FieldPath.shown(name))'")
        }
        var segments: [String] = []
        for piece in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard FieldPath.isIdentifier(piece) else {
                throw .invalidQuery("invalid field name '\(FieldPath.shown(name))'")
            }
            segments.append(String(piece))
        }
        self.name = name
        self.segments = segments
    }

    private static func isIdentifier(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }

    /// Error messages echo the name, but cut short so a hostile megabyte-long key does not come back whole.
    static func shown(_ name: String) -> String {
        name.count <= 64 ? name : String(name.prefix(64)) + "…"
    }
}
