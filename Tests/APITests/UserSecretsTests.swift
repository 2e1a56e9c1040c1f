import Foundation
import Testing

@testable import API

@Suite struct UserSecretsTests {
    @Test func aPasswordVerifiesAgainstItsOwnHashOnly() async throws {
        let stored = try await PasswordHash.make("correct horse")
        let parts = stored.split(separator: "$").map(String.init)
        #expect(parts.count == 6 && Array(parts[0...3]) == ["scrypt", "32768", "8", "1"])
        #expect(Data(base64Encoded: parts[4])?.count == 16 && Data(base64Encoded: parts[5])?.count == 32)
        #expect(try await PasswordHash.verify("correct horse", against: stored))
        #expect(try await !PasswordHash.verify("correct horsf", against: stored))
        #expect(try await !PasswordHash.verify("", against: stored))
        // A fresh salt each time: two users with one password do not share a hash.
        #expect(try await PasswordHash.make("correct horse") != stored)
    }

    /// RFC 7914 §12's third vector (N = 1024, r = 8, p = 16, 64 bytes), in the stored form: the parameters
    /// travel with the hash, and the derivation is scrypt's, not merely self-consistent.
    @Test func aHashIsCheckedWithTheParametersItCarries() async throws {
        let vector =
            "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727"
            + "afb94a83ee6d8360cbdfa2cc0640"
        let bytes = stride(from: 0, to: vector.count, by: 2).map { i -> UInt8 in
            let start = vector.index(vector.startIndex, offsetBy: i)
            return UInt8(vector[start..<vector.index(start, offsetBy: 2)], radix: 16)!
        }
        let stored = "scrypt$1024$8$16$\(Data("NaCl".utf8).base64EncodedString())$\(Data(bytes).base64EncodedString())"
        #expect(try await PasswordHash.verify("password", against: stored))
        #expect(try await !PasswordHash.verify("Password", against: stored))
    }

    @Test func unreadableHashesNeverVerify() async throws {
        for stored in ["", "plain", "scrypt$1024$8$16$$", "bcrypt$1$2$3$AAAA$AAAA", "scrypt$x$8$1$AAAA$AAAA"] {
            #expect(try await !PasswordHash.verify("password", against: stored))
        }
    }

    @Test func sessionTokensAreRandomAndStoredAsTheirSHA256() {
        let token = SessionToken.make()
        #expect(token.utf8.count == 32 && token.utf8.allSatisfy { SessionToken.alphabet.contains($0) })
        #expect(SessionToken.make() != token)
        // FIPS 180-2's "abc" vector.
        #expect(SessionToken.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
