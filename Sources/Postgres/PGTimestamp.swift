import Foundation

/// Converts between `Date` and PostgreSQL's `timestamptz` text with microsecond precision, in UTC.
/// The server is asked for ISO output (`DateStyle=ISO`, `TimeZone=UTC`) on every connection.
public enum PGTimestamp {
    public static func format(_ date: Date) -> String {
        // Clamped to years 1..9999 (and NaN to the epoch) so that no instant can trap the conversion.
        let raw = date.timeIntervalSince1970
        let seconds1970 = raw.isNaN ? 0 : min(max(raw, -62_135_596_800), 253_402_300_800)
        // Truncated, never rounded up: an instant written as "now" must not read back as later than now.
        // Clamped again in microseconds, which a Double that large cannot hold to the last one.
        let micros = min(Int64((seconds1970 * 1_000_000).rounded(.down)), 253_402_300_799_999_999)
        var seconds = micros / 1_000_000
        var fraction = micros % 1_000_000
        if fraction < 0 {
            fraction += 1_000_000
            seconds -= 1
        }
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        // Written digit by digit: `String(format:)` is slow for so little, and a push formats several instants
        // for each page and batch.
        var text = [UInt8]()
        text.reserveCapacity(29)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(Int(parts.tm_year) + 1900, 4)
        text.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        text.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        text.append(UInt8(ascii: " "))
        digits(Int(parts.tm_hour), 2)
        text.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        text.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        text.append(UInt8(ascii: "."))
        digits(Int(fraction), 6)
        text.append(contentsOf: "+00".utf8)
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses `2024-01-02 03:04:05.123456+00` (as sent with TimeZone=UTC).
    public static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= b.count else { return nil }
            var v = 0
            for i in from..<(from + len) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard b.count >= 19, let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2),
            let mi = num(14, 2), let s = num(17, 2)
        else { return nil }
        var i = 19
        var micros = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 100_000
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                micros += Int(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
        }
        var offset = 0
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "+") ? 1 : -1
            let oh = num(i + 1, 2) ?? 0
            let om = (i + 3 < b.count && b[i + 3] == UInt8(ascii: ":")) ? (num(i + 4, 2) ?? 0) : 0
            offset = sign * (oh * 3600 + om * 60)
        }
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * ((mo + 9) % 12) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        let seconds = Int64(days) * 86400 + Int64(h * 3600 + mi * 60 + s - offset)
        return Date(timeIntervalSince1970: Double(seconds) + Double(micros) / 1_000_000)
    }
}
