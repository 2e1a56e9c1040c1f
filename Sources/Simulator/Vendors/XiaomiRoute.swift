/// Xiaomi MiPush's path, the look-alike's credentials and codes. `/mi` and `/mi-global` answer alike.
enum XiaomiRoute {
    static let appSecret = "sim-mi-secret"
    static let packageName = "com.example.sim"

    static let sendPath = "/v3/message/regid"

    static let maxRegistrationIDs = 1000
    static let maxTitleCharacters = 50
    static let maxDescriptionCharacters = 128

    static let authenticationFailed = 21301
    static let badParameters = 10017
    static let unavailable = 10002
    static let dailyQuota = 200001
}
