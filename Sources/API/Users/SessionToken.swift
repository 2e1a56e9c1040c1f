import Crypto
import PushCore

/// Users' session tokens (SPEC §12.5): 32 random lowercase letters and digits (165 bits, the shape of
/// LeanCloud's), handed to the client once and stored only as their SHA-256. A fast hash is enough: nobody can
/// guess a token from its hash, where a password would need a slow one.
enum SessionToken {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    static func make() -> String {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in alphabet[Int(random.next(upperBound: UInt32(alphabet.count)))] }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func hash(_ token: String) -> String {
        HexText.lowercase(Array(SHA256.hash(data: Array(token.utf8))))
    }
}
