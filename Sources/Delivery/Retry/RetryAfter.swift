import Foundation

/// Reads a `Retry-After` header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
public enum RetryAfter {
    public static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let date = httpDate(trimmed) else { return nil }
        let delay = date.timeIntervalSince(now)
        return .milliseconds(Int64(max(0, delay) * 1000))
    }

    /// IMF-fixdate, the only form senders may generate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
