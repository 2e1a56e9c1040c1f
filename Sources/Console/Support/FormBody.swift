import Foundation
import HTTPEdge
import Hummingbird
import NIOCore

/// An `application/x-www-form-urlencoded` body: what the console's forms post. Repeated names keep every value
/// (the device list's lines, checkboxes).
struct FormBody: Sendable {
    private let pairs: [(String, String)]

    init(_ text: String) {
        pairs = text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (Request.formDecode(parts[0]), parts.count > 1 ? Request.formDecode(parts[1]) : "")
        }
    }

    /// Reads the body once; the session middleware has already buffered it, so handlers can read it again.
    static func read(_ request: inout Request) async throws -> FormBody {
        let buffer = try await request.collectBody(upTo: APILimits.maxBodyBytes)
        return FormBody(String(buffer: buffer))
    }

    subscript(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    /// The trimmed value, nil when absent or blank.
    func text(_ name: String) -> String? {
        guard let v = self[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !v.isEmpty else { return nil }
        return v
    }

    func all(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }
}
