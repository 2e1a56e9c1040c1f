import Foundation
import PushCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A minimal JSON HTTP client for end-to-end tests.
public struct TestHTTP: Sendable {
    public let baseURL: String
    public var headers: [String: String]

    public init(baseURL: String, headers: [String: String] = [:]) {
        self.baseURL = baseURL
        self.headers = headers
    }

    public struct Reply: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: JSON
        public let text: String
    }

    public func send(
        _ method: String, _ path: String, json: JSON? = nil, rawBody: Data? = nil,
        headers extra: [String: String] = [:]
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        for (k, v) in headers.merging(extra, uniquingKeysWith: { $1 }) { request.setValue(v, forHTTPHeaderField: k) }
        if let json {
            request.httpBody = Data(json.encoded().utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let rawBody {
            request.httpBody = rawBody
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (k, v) in http.allHeaderFields { fields[String(describing: k).lowercased()] = String(describing: v) }
        let text = String(decoding: data, as: UTF8.self)
        return Reply(status: http.statusCode, headers: fields, body: (try? JSON.parse(text)) ?? .null, text: text)
    }

    /// Percent-encodes a query value.
    public static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
    }
}
