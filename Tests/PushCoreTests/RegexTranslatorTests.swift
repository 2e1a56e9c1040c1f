import Testing

@testable import PushCore

/// Java-style `$regex` + `$options` → PostgreSQL ARE.
struct RegexTranslatorTests {
    func translate(_ pattern: String, _ options: String = "") throws -> String {
        try RegexTranslator.translate(pattern: pattern, options: options, field: "f")
    }

    @Test func optionsMapToEmbeddedAREOptions() throws {
        #expect(try translate("a") == "(?p)a")
        #expect(try translate("a", "s") == "(?s)a")
        #expect(try translate("a", "m") == "(?n)a")
        #expect(try translate("a", "ms") == "(?w)a")
        #expect(try translate("a", "ixi") == "(?pix)a")
    }

    @Test func quotedSpansBecomeEscapedLiterals() throws {
        #expect(try translate(#"\Qpublic\E"#) == "(?p)public")
        #expect(try translate(#"^\Qa.b*(c)\E$"#) == #"(?p)^a\.b\*\(c\)$"#)
        #expect(try translate(##"\Qa b#c\E"##, "x") == ##"(?px)a\ b\#c"##)
        // An unterminated span runs to the end, as in Java.
        #expect(try translate(#"x\Q[y"#) == #"(?p)x\[y"#)
        // Inside the span a backslash is literal; the first \E ends it.
        #expect(try translate(#"\Q\d\\E"#) == #"(?p)\\d\\"#)
        #expect(try translate(#"\Q中.\E"#) == #"(?p)中\."#)
    }

    @Test func javaOnlyEscapesAreTranslated() throws {
        #expect(try translate(#"\bword\B"#) == #"(?p)\yword\Y"#)
        #expect(try translate(#"end\z"#) == #"(?p)end\Z"#)
        #expect(try translate(#"a\Eb"#) == "(?p)ab")
        #expect(try translate(#"\d+\.\w"#) == #"(?p)\d+\.\w"#)
        #expect(try translate(#"trailing\"#) == #"(?p)trailing\"#)
    }

    @Test func leadingJavaFlagsMergeIntoTheOptions() throws {
        #expect(try translate("(?i)abc") == "(?pi)abc")
        #expect(try translate("(?is)abc", "m") == "(?wi)abc")
        // Not flags: left alone for PostgreSQL.
        #expect(try translate("(?:abc)") == "(?p)(?:abc)")
        #expect(try translate("(?=a)") == "(?p)(?=a)")
    }

    @Test func unknownOptionsAreRefused() {
        #expect(throws: QueryError.invalidQuery("invalid $options 'u' for field 'f': use i, m, s, x")) {
            try translate("a", "u")
        }
    }
}
