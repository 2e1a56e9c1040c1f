/// How devices of an app may log in to the own channel (SPEC §12.4), the setting `channel.login`: `token`, the
/// default, admits only the signed channel tokens handed out at installation save; `installation-id` also admits
/// the LeanCloud SDK's login by appId and installationId, which carries no credential (anyone who knows an
/// installationId can read its messages), for apps migrating from LeanCloud.
public enum ChannelLogin {
    public static let settingKey = "channel.login"
    public static let token = "token"
    public static let installationId = "installation-id"
    public static let values: [String] = [token, installationId]
}
