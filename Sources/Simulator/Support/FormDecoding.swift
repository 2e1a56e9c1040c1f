import Foundation

/// `application/x-www-form-urlencoded` decoding, for the OAuth token request and control-endpoint queries.
enum FormDecoding {
    static func decode(_ text: Substring) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.unescape(parts[0])
            let value = parts.count > 1 ? Self.unescape(parts[1]) : ""
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    private static func unescape(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
