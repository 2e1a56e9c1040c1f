import Crypto
import Foundation
import NIOPosix
import _CryptoExtras

/// Users' passwords as salted scrypt hashes (SPEC §12.5), in the text form
/// `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`: the parameters travel with each hash, so raising them
/// later leaves earlier hashes checkable. N = 2^15, r = 8, p = 1 costs 32 MiB and tens of milliseconds per hash;
/// the work runs on NIO's blocking-work pool (one thread per core), which also bounds the memory concurrent
/// sign-ins take, and never on the cooperative threads that serve requests.
enum PasswordHash {
    static let rounds = 1 << 15
    static let blockSize = 8
    static let parallelism = 1
    static let saltBytes = 16
    static let hashBytes = 32

    static func make(_ password: String) async throws -> String {
        var random = SystemRandomNumberGenerator()
        let salt = (0..<saltBytes).map { _ in UInt8.random(in: 0...255, using: &random) }
        let derived = try await derive(
            password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism, length: hashBytes)
        return [
            "scrypt", String(rounds), String(blockSize), String(parallelism),
            Data(salt).base64EncodedString(), Data(derived).base64EncodedString(),
        ].joined(separator: "$")
    }

    /// Whether `password` is the one `stored` was made from; false for a hash this code cannot read.
    static func verify(_ password: String, against stored: String) async throws -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let n = Int(parts[1]), let r = Int(parts[2]),
            let p = Int(parts[3]), let salt = Data(base64Encoded: parts[4]),
            let expected = Data(base64Encoded: parts[5]), !expected.isEmpty
        else { return false }
        let derived = try await derive(
            password, salt: Array(salt), rounds: n, blockSize: r, parallelism: p, length: expected.count)
        return constantTimeEqual(derived, Array(expected))
    }

    private static func derive(
        _ password: String, salt: [UInt8], rounds: Int, blockSize: Int, parallelism: Int, length: Int
    ) async throws -> [UInt8] {
        try await NIOThreadPool.singleton.runIfActive {
            let key = try KDF.Scrypt.deriveKey(
                from: Array(password.utf8), salt: salt, outputByteCount: length, rounds: rounds,
                blockSize: blockSize, parallelism: parallelism)
            return key.withUnsafeBytes { Array($0) }
        }
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
