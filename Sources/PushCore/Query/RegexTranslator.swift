/// Turns a LeanCloud `$regex` (Java syntax: LeanCloud and Parse hand patterns to Java/MongoDB) plus its `$options`
/// into a PostgreSQL ARE for the `~` operator.
///
/// Differences from Java that remain (documented rather than emulated):
/// - Without `s`, `.` and negated brackets (`[^a]`) do not match a newline (ARE option `p`); Java's `[^a]` does.
/// - Java's `$` also matches before a final line terminator; ARE's `$` (without `m`) only at the very end.
/// - Java-only syntax (possessive quantifiers `a*+`, atomic groups, `\p{…}` classes, `(?i:…)` scoped flags,
///   `&&` class intersection) is passed through and makes PostgreSQL raise SQLSTATE 2201B at run time.
/// Translated: `\Q…\E` literal spans, leading `(?imsx)` flags, `\b`/`\B` (ARE: `\y`/`\Y`), `\z` (ARE: `\Z`).
enum RegexTranslator {
    static func translate(pattern: String, options: String, field: String) throws(QueryError) -> String {
        var flags = Set<Character>()
        for flag in options {
            guard "imsx".contains(flag) else {
                let shown = FieldPath.shown(options)
                throw .invalidQuery("invalid $options '\(shown)' for field '\(field)': use i, m, s, x")
            }
            flags.insert(flag)
        }
        var body = Substring(pattern)
        // Java allows flags as a leading group; ARE only allows them as its own leading `(?…)`, which we emit.
        if body.hasPrefix("(?"), let close = body.firstIndex(of: ")") {
            let letters = body[body.index(body.startIndex, offsetBy: 2)..<close]
            if !letters.isEmpty, letters.allSatisfy({ "imsx".contains($0) }) {
                flags.formUnion(letters)
                body = body[body.index(after: close)...]
            }
        }
        return embeddedOptions(flags) + translateEscapes(body)
    }

    /// ARE embedded options. Java's defaults (`.` not matching newline, `^`/`$` only at the ends) are ARE's `p`;
    /// `s` lets `.` match newlines, `m` makes `^`/`$` match at lines: together ARE's `s`, `n`, `w`.
    static func embeddedOptions(_ flags: Set<Character>) -> String {
        let newline: String
        switch (flags.contains("s"), flags.contains("m")) {
        case (false, false): newline = "p"
        case (true, false): newline = "s"
        case (false, true): newline = "n"
        case (true, true): newline = "w"
        }
        return "(?" + newline + (flags.contains("i") ? "i" : "") + (flags.contains("x") ? "x" : "") + ")"
    }

    private static func translateEscapes(_ pattern: Substring) -> String {
        // Unicode scalars, not Characters: a backslash followed by a combining mark is one Character.
        var out = String.UnicodeScalarView()
        let scalars = Array(pattern.unicodeScalars)
        var quoting = false
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            let next: Unicode.Scalar? = i + 1 < scalars.count ? scalars[i + 1] : nil
            i += 1
            if quoting {
                // Java ends the span at the first `\E`; any other backslash inside it is literal.
                if c == "\\", next == "E" {
                    quoting = false
                    i += 1
                } else {
                    appendLiteral(c, to: &out)
                }
                continue
            }
            guard c == "\\", let next else {
                out.append(c)
                continue
            }
            i += 1
            switch next {
            case "Q": quoting = true
            case "E": continue  // Java ignores a stray \E; ARE would reject it.
            case "b": out.append(contentsOf: "\\y".unicodeScalars)
            case "B": out.append(contentsOf: "\\Y".unicodeScalars)
            case "z": out.append(contentsOf: "\\Z".unicodeScalars)
            default:
                out.append("\\")
                out.append(next)
            }
        }
        return String(out)
    }

    /// One character matched literally: ASCII punctuation and white space get a backslash (in AREs `\` before a
    /// non-alphanumeric character means that character, also in expanded mode); letters, digits and non-ASCII
    /// characters are never special, and a backslash before them would start an escape.
    private static func appendLiteral(_ c: Unicode.Scalar, to out: inout String.UnicodeScalarView) {
        let special = c.isASCII && !(c.properties.isAlphabetic || ("0"..."9").contains(c))
        if special { out.append("\\") }
        out.append(c)
    }
}
