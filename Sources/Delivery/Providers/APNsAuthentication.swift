/// How PushLedger proves itself to APNs.
public enum APNsAuthentication: Sendable, Hashable {
    /// Provider token (JWT) from a `.p8` key; one key serves every app of the team.
    case token(keyFile: String, keyId: String, teamId: String)
    /// TLS client certificate (PEM) for one app; `keyFile` may be `nil` when the certificate file holds the key.
    case certificate(certificateFile: String, keyFile: String?, keyPassword: String?)
}
