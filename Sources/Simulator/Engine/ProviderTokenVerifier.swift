import Crypto
import Foundation
import Synchronization

/// Checks APNs provider tokens (`authorization: bearer <ES256 JWT>`) the way Apple does.
///
/// Clients reuse one token for 20–60 minutes, so a token whose signature verified is cached with its `iat`; the
/// expiry check still runs on every request. Without the cache an ECDSA verification per request would dominate the
/// simulator's cost under load.
final class ProviderTokenVerifier: Sendable {
    /// Apple refuses tokens whose `iat` is older than one hour.
    static let maximumAge = 3600

    private let keys: [String: APNsVerificationKey]
    private let verified = Mutex<[String: Int]>([:])
    private static let cacheLimit = 256

    var isEnabled: Bool { !self.keys.isEmpty }

    init(keys: [APNsVerificationKey]) {
        self.keys = Dictionary(keys.map { ($0.keyID, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The APNs reason to refuse the request with, or `nil` when the token is acceptable.
    func rejection(authorization: String?, now: Int) -> String? {
        guard let authorization, BearerScheme.matches(authorization) else { return "MissingProviderToken" }
        // The cache is keyed by the whole header value, so a hit costs no allocation.
        let issuedAt: Int
        if let cached = self.verified.withLock({ $0[authorization] }) {
            issuedAt = cached
        } else {
            guard let checked = self.verify(authorization.dropFirst(7).drop { $0 == " " }) else {
                return "InvalidProviderToken"
            }
            issuedAt = checked
            self.verified.withLock { cache in
                if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
                cache[authorization] = checked
            }
        }
        if now - issuedAt > Self.maximumAge {
            return "ExpiredProviderToken"
        }
        return nil
    }

    /// The token's `iat` when its signature, key and issuer check out.
    private func verify(_ token: Substring) -> Int? {
        guard let jwt = try? CompactJWT(token), jwt.algorithm == "ES256",
            let keyID = jwt.keyID, let key = self.keys[keyID],
            let issuer = jwt.claims["iss"]?.stringValue,
            let issuedAt = jwt.claims["iat"]?.integerValue,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jwt.signature),
            key.publicKey.isValidSignature(signature, for: jwt.signingInput)
        else { return nil }
        if let teamID = key.teamID, teamID != issuer { return nil }
        return issuedAt
    }

    func clearCache() {
        self.verified.withLock { $0.removeAll() }
    }
}
