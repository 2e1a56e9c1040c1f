/// Escaping for PostgreSQL's COPY text format.
public enum PGCopy {
    /// One field: `\N` for NULL; backslash, tab, newline and carriage return escaped.
    public static func escape(_ value: String?) -> String {
        guard let value else { return "\\N" }
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    public static func line(_ fields: [String?]) -> String {
        fields.map(escape).joined(separator: "\t")
    }
}
