import Foundation

/// LeanCloud's date rendering, `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC, and its parsing (also accepting ISO 8601
/// without fractional seconds or with an offset, as SDKs send both).
public enum LeanDate {
    /// The earliest and latest instants a LeanCloud date can spell (four-digit years). Requests are validated
    /// against them at the edge; `format` clamps rather than traps, so no input can crash the process.
    public static let earliest = Date(timeIntervalSince1970: -62_135_596_800)  // 0001-01-01T00:00:00Z
    public static let latest = Date(timeIntervalSince1970: 253_402_300_799.999)  // 9999-12-31T23:59:59.999Z

    public static func format(_ date: Date) -> String {
        format(unixMilliseconds: unixMilliseconds(date))
    }

    /// Milliseconds since 1970 of `date`, clamped to the spellable range (and 0 for NaN), never trapping.
    public static func unixMilliseconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970
        guard !seconds.isNaN else { return 0 }
        let clamped = min(max(seconds, earliest.timeIntervalSince1970), latest.timeIntervalSince1970)
        return Int64((clamped * 1000).rounded(.down))
    }

    /// True for an instant `format` renders faithfully (a four-digit year).
    public static func isRepresentable(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSince1970
        return seconds.isFinite && date >= earliest && date <= latest
    }

    public static func format(unixMilliseconds ms: Int64) -> String {
        var seconds = ms / 1000
        var millis = ms % 1000
        if millis < 0 {
            millis += 1000
            seconds -= 1
        }
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }

    /// A date as LeanCloud clients send it: ISO 8601 text or `{"__type":"Date","iso":"…"}`.
    public static func parse(_ value: JSON) -> Date? {
        if let s = value.stringValue { return parse(s) }
        if let s = value["iso"]?.stringValue { return parse(s) }
        return nil
    }

    /// Parses `2024-01-02T03:04:05.678Z`, `2024-01-02T03:04:05Z`, `2024-01-02T03:04:05+08:00`, `2024-01-02`.
    public static func parse(_ text: String) -> Date? {
        let s = Array(text.utf8)
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= s.count else { return nil }
            var v = 0
            for i in from..<(from + len) {
                guard s[i] >= 48, s[i] <= 57 else { return nil }
                v = v * 10 + Int(s[i] - 48)
            }
            return v
        }
        guard let year = num(0, 4), s.count >= 10, s[4] == UInt8(ascii: "-"), let month = num(5, 2),
            s[7] == UInt8(ascii: "-"), let day = num(8, 2), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        var millis = 0.0
        var offsetSeconds = 0
        var i = 10
        if s.count > 10 {
            guard s[10] == UInt8(ascii: "T") || s[10] == UInt8(ascii: " "), let h = num(11, 2),
                s.count > 13, s[13] == UInt8(ascii: ":"), let m = num(14, 2)
            else { return nil }
            hour = h
            minute = m
            i = 16
            if i < s.count, s[i] == UInt8(ascii: ":") {
                guard let sec = num(17, 2) else { return nil }
                second = sec
                i = 19
                if i < s.count, s[i] == UInt8(ascii: ".") {
                    i += 1
                    var scale = 100.0
                    let start = i
                    while i < s.count, s[i] >= 48, s[i] <= 57 {
                        millis += Double(s[i] - 48) * scale
                        scale /= 10
                        i += 1
                    }
                    guard i > start else { return nil }
                }
            }
            if i < s.count {
                if s[i] == UInt8(ascii: "Z") {
                    i += 1
                } else if s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
                    let sign = s[i] == UInt8(ascii: "+") ? 1 : -1
                    guard let oh = num(i + 1, 2) else { return nil }
                    var j = i + 3
                    if j < s.count, s[j] == UInt8(ascii: ":") { j += 1 }
                    let om = num(j, 2) ?? 0
                    if num(j, 2) != nil { j += 2 }
                    offsetSeconds = sign * (oh * 3600 + om * 60)
                    i = j
                } else {
                    return nil
                }
            }
            guard i == s.count, hour < 24, minute < 60, second < 61 else { return nil }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let total = Double(days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds) + millis / 1000
        let date = Date(timeIntervalSince1970: total)
        // 9999-12-31T23:59-14:00 is in the year 10000 in UTC: no LeanCloud date can spell it, nor can the log.
        return isRepresentable(date) ? date : nil
    }

    /// The length of a month of the proleptic Gregorian calendar: 2024-02-31 is no date at all.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
