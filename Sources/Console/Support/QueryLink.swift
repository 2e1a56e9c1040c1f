import Foundation
import HTTPEdge
import Hummingbird

/// A console link that keeps the current page's filters (`carrying`) beside values of its own.
enum QueryLink {
    static func make(_ path: String, _ own: [String: String], carrying: [String], from request: Request) -> String {
        var pairs = own.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        for name in carrying {
            if let value = request.query(name), !value.isEmpty { pairs.append((name, value)) }
        }
        let query = pairs.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        return path + "?" + query.joined(separator: "&")
    }
}
