import Foundation
import Postgres
import Testing

@Suite("PGQuery and value encoding")
struct PGQueryTests {
    @Test("interpolated values become numbered parameters, never SQL text")
    func interpolationBinds() {
        let name = "x'; DROP TABLE events; --"
        let q: PGQuery =
            "SELECT * FROM t WHERE a = \(name) AND b = \(42) AND c = \(true) AND d = \(Optional<String>.none)"
        #expect(q.sql == "SELECT * FROM t WHERE a = $1 AND b = $2 AND c = $3 AND d = $4")
        #expect(q.binds == [name, "42", "t", nil])
        #expect(!q.sql.contains("DROP"))
    }

    @Test("appending a query renumbers its placeholders but not dollar signs inside literals")
    func appendRenumbers() {
        var q: PGQuery = "SELECT \(1), \(2)"
        q.append(PGQuery(unsafeSQL: " WHERE x = $1 AND y = '$1' AND z = $2", binds: ["a", "b"]))
        #expect(q.sql == "SELECT $1, $2 WHERE x = $3 AND y = '$1' AND z = $4")
        #expect(q.binds == ["1", "2", "a", "b"])
        let nested: PGQuery = "A \(3) \(PGQuery(unsafeSQL: "B $1", binds: ["z"])) C \(4)"
        #expect(nested.sql == "A $1 B $2 C $3")
        #expect(nested.binds == ["3", "z", "4"])
    }

    @Test("text arrays are quoted so commas, quotes and backslashes survive")
    func arrayLiteral() {
        #expect(["a", "b,c", "d\"e", "f\\g"].pgText == "{\"a\",\"b,c\",\"d\\\"e\",\"f\\\\g\"}")
        #expect([String]().pgText == "{}")
        // Escapes at the edges, side by side, and between multi-byte characters.
        #expect(["\"\\", "é\"ü", ""].pgText == #"{"\"\\","é\"ü",""}"#)
    }

    @Test("timestamps round-trip with microsecond precision in UTC")
    func timestamps() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let text = try #require(date.pgText)
        #expect(text == "2023-11-14 22:13:20.123456+00")
        let back = try #require(PGTimestamp.parse(text))
        #expect(abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
        #expect(PGTimestamp.parse("2024-02-29 12:00:00+08")?.timeIntervalSince1970 == 1_709_179_200)
        #expect(PGTimestamp.parse("garbage") == nil)
    }

    @Test("timestamps are written as gmtime's fields with six digits of microseconds, at the edges too")
    func timestampText() {
        #expect(Date(timeIntervalSince1970: -0.5).pgText == "1969-12-31 23:59:59.500000+00")
        #expect(Date(timeIntervalSince1970: 1.25).pgText == "1970-01-01 00:00:01.250000+00")
        #expect(Date(timeIntervalSince1970: 1e12).pgText == "9999-12-31 23:59:59.999999+00")
        #expect(Date(timeIntervalSince1970: -62_135_596_800).pgText == "0001-01-01 00:00:00.000000+00")
        #expect(Date(timeIntervalSince1970: .nan).pgText == "1970-01-01 00:00:00.000000+00")
        #expect(Date(timeIntervalSince1970: 951_782_400).pgText == "2000-02-29 00:00:00.000000+00")
        // Against the same fields printed by `String(format:)`, over instants from year 1 to 9999 and beyond.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let date = Date(timeIntervalSince1970: Double.random(in: -63e9...254e9, using: &generator))
            #expect(date.pgText == Self.printed(date), "\(date.timeIntervalSince1970)")
        }
    }

    /// `PGTimestamp.format`'s fields, printed by `String(format:)` (what it did before it wrote the digits).
    static func printed(_ date: Date) -> String {
        let raw = min(max(date.timeIntervalSince1970, -62_135_596_800), 253_402_300_800)
        let micros = min(Int64((raw * 1_000_000).rounded(.down)), 253_402_300_799_999_999)
        let (seconds, fraction) =
            micros % 1_000_000 < 0
            ? (micros / 1_000_000 - 1, micros % 1_000_000 + 1_000_000) : (micros / 1_000_000, micros % 1_000_000)
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%06lld+00", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, fraction)
    }

    @Test("COPY text fields escape separators and mark NULL")
    func copyEscaping() {
        #expect(PGCopy.line(["a\tb", nil, "c\\d\ne"]) == "a\\tb\t\\N\tc\\\\d\\ne")
    }
}
