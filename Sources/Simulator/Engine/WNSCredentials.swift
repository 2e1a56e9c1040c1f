/// A WNS app identity the simulator's token endpoint accepts: the package SID (`client_id`) and its secret.
public struct WNSCredentials: Sendable, Hashable {
    public var packageSid: String
    public var secret: String

    public init(packageSid: String, secret: String) {
        self.packageSid = packageSid
        self.secret = secret
    }
}
