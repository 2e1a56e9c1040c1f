import Foundation
import PushCore

/// A compact JWS split into its decoded parts, for assertions.
struct JWTParts {
    let header: JSON
    let claims: JSON
    let signingInput: Data
    let signature: Data

    init(_ token: String) throws {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { throw Malformed() }
        guard let header = Self.decode(segments[0]), let claims = Self.decode(segments[1]),
            let signature = Self.data(segments[2])
        else { throw Malformed() }
        self.header = try JSON.parse(header)
        self.claims = try JSON.parse(claims)
        self.signingInput = Data((segments[0] + "." + segments[1]).utf8)
        self.signature = signature
    }

    private static func decode(_ segment: Substring) -> [UInt8]? { data(segment).map { Array($0) } }

    private static func data(_ segment: Substring) -> Data? {
        // Base64url must come unpadded and without the standard alphabet's + and /.
        guard !segment.contains("="), !segment.contains("+"), !segment.contains("/") else { return nil }
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text)
    }

    /// Not a three-part base64url JWS.
    struct Malformed: Error {}
}
