import Foundation

/// One HTTP answer as `curl -i` printed it.
struct CurlResponse {
    var httpVersion: String
    var status: Int
    var headers: [String: String]
    var body: String

    /// Parses the last response in `curl -i` output (earlier ones are interim or redirected answers).
    init(parsing output: String) throws {
        let normalized = output.replacingOccurrences(of: "\r\n", with: "\n")
        guard let separator = normalized.range(of: "\n\n") else { throw ParseError(output: output) }
        let head = normalized[..<separator.lowerBound].split(separator: "\n")
        guard let statusLine = head.first else { throw ParseError(output: output) }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw ParseError(output: output) }
        self.httpVersion = String(parts[0])
        self.status = status
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = headers
        self.body = String(normalized[separator.upperBound...])
    }

    /// The body as a JSON object.
    var json: [String: Any] {
        get throws {
            let object = try JSONSerialization.jsonObject(with: Data(self.body.utf8))
            guard let dictionary = object as? [String: Any] else { throw ParseError(output: self.body) }
            return dictionary
        }
    }

    struct ParseError: Error, CustomStringConvertible {
        var output: String
        var description: String { "unexpected curl output: \(self.output)" }
    }
}
