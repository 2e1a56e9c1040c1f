/// Meizu Flyme Push's paths, the look-alike's credentials and codes (strings on the wire).
enum MeizuRoute {
    static let appID = "110001"
    static let appSecret = "sim-mz-secret"

    static let notificationPath = "/garcia/api/server/push/varnished/pushByPushId"
    static let passThroughPath = "/garcia/api/server/push/unvarnished/pushByPushId"

    static let maxPushIDs = 1000
    static let maxTitleCharacters = 32
    static let maxContentCharacters = 100
    static let maxPassThroughContentCharacters = 2000
    static let validHours = 1...72

    static let success = "200"
    static let badParameters = "1005"
    static let badSignature = "1006"
    static let badAppID = "110000"
    static let invalidPushID = "110003"
    static let rateTooHigh = "110010"
    static let pushFailed = "501"

    /// Lowercase md5 of every field but `sign`, sorted by name as `k=v` with nothing between, then the app secret,
    /// over the values as sent before URL encoding.
    static func signature(of fields: [String: String], secret: String) -> String {
        let text = fields.filter { $0.key != "sign" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            .joined()
        return VendorDigests.md5(text + secret)
    }
}
