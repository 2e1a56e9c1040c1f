import Crypto
import ExtrasBase64
import Foundation
import Ledger

/// The credential a device connects to its channel with (SPEC §12.2): an HMAC-SHA256 over the app id and the
/// installationId, keyed by the app's `channel.secret` (or, without one, a key derived from its master key).
/// Handed out when the installation is saved; checked without a database query on every connect. A device
/// knows only its own token, so it can only ever read its own messages.
public enum ChannelToken {
    public static func make(app: App, installationId: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(app.appId)\n\(installationId)".utf8), using: key(app))
        return Base64.encodeToString(bytes: Array(mac), options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// Whether `token` is the one `make` gives for this device (compared in constant time).
    public static func verify(_ token: String, app: App, installationId: String) -> Bool {
        let expected = Array(make(app: app, installationId: installationId).utf8)
        let given = Array(token.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func key(_ app: App) -> SymmetricKey {
        if let secret = app.setting("channel.secret")?.stringValue, !secret.isEmpty {
            return SymmetricKey(data: Array(secret.utf8))
        }
        // Derived, so the token never reveals anything usable as the master key itself.
        let derived = HMAC<SHA256>.authenticationCode(
            for: Array("pushledger device channel v1".utf8), using: SymmetricKey(data: Array(app.masterKey.utf8)))
        return SymmetricKey(data: Array(derived))
    }
}
