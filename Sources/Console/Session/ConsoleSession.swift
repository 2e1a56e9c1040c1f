import Crypto
import Foundation
import PushCore

/// A console login, carried in a signed cookie rather than stored: any `serve` process on the same database
/// can check it. The MAC is keyed from the app's master key, so changing the master key ends every session.
public struct ConsoleSession: Sendable, Equatable {
    public let appId: String
    /// Unix seconds after which the cookie is refused.
    public let expires: Int64

    public static let cookieName = "pl_console"
    /// A working day: long enough not to interrupt, short enough that a forgotten browser stops counting.
    public static let lifetime: Int64 = 8 * 3600

    public init(appId: String, expires: Int64) {
        self.appId = appId
        self.expires = expires
    }

    public static func start(appId: String, now: Date) -> ConsoleSession {
        ConsoleSession(appId: appId, expires: Int64(now.timeIntervalSince1970) + lifetime)
    }

    /// `<base64url(appId)>.<expires>.<hex HMAC-SHA256>`: only cookie-safe characters.
    public func cookieValue(masterKey: String) -> String {
        let id = Base64URL.encode(Data(appId.utf8))
        return "\(id).\(expires).\(Self.mac("session", id, String(expires), masterKey: masterKey))"
    }

    /// The app a cookie claims, before its signature can be checked (that needs the app's master key).
    public static func claimedAppId(_ cookie: String) -> String? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(String(parts[0])) else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// The session a cookie holds when its MAC matches `masterKey` and it has not expired.
    public static func verify(_ cookie: String, masterKey: String, now: Date) -> ConsoleSession? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let expires = Int64(parts[1]), let appId = claimedAppId(cookie) else { return nil }
        let expected = mac("session", parts[0], parts[1], masterKey: masterKey)
        guard ConstantTime.equal(expected, parts[2]), Int64(now.timeIntervalSince1970) < expires else { return nil }
        return ConsoleSession(appId: appId, expires: expires)
    }

    /// The CSRF token every form of this session carries: bound to the session, so a token from another
    /// session or app is refused, and nothing needs storing.
    public func csrfToken(masterKey: String) -> String {
        Self.mac("csrf", appId, String(expires), masterKey: masterKey)
    }

    public func acceptsCSRF(_ token: String?, masterKey: String) -> Bool {
        guard let token, !token.isEmpty else { return false }
        return ConstantTime.equal(csrfToken(masterKey: masterKey), token)
    }

    static func mac(_ purpose: String, _ a: String, _ b: String, masterKey: String) -> String {
        // A key of its own for the console: the master key itself is never used as a MAC key elsewhere.
        let key = SymmetricKey(data: SHA256.hash(data: Data("pushledger-console\u{0}\(masterKey)".utf8)))
        let code = HMAC<SHA256>.authenticationCode(for: Data("\(purpose)\u{0}\(a)\u{0}\(b)".utf8), using: key)
        return HexText.lowercase(Array(code))
    }
}

/// Comparisons whose time does not depend on where the strings first differ.
enum ConstantTime {
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}

/// base64url without padding (RFC 4648 §5), which cookies carry unquoted.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }
}
