/// vivo Push's paths, the look-alike's credentials and result codes.
enum VivoRoute {
    static let appID = 10001
    static let appKey = "sim-vivo-key"
    static let appSecret = "sim-vivo-secret"

    static let authPath = "/message/auth"
    static let sendPath = "/message/send"
    static let saveListPayloadPath = "/message/saveListPayload"
    static let pushToListPath = "/message/pushToList"

    static let maxTitleCharacters = 40
    static let maxContentCharacters = 100
    /// `pushToList` takes 2 to 1000 ids; one device goes to `/message/send`.
    static let listSizes = 2...1000
    static let timestampToleranceMilliseconds: Int64 = 10 * 60 * 1000

    static let success = 0
    static let authTokenInvalid = 10000
    static let badSign = 10200
    static let badParameters = 10050
    static let appIDMismatch = 10094
    static let invalidRegistrationID = 10302
    static let unavailable = 10040
    static let dailyQuota = 10070
    static let pushFailed = 10055
    /// The statistics' name for the devices a list push reports invalid.
    static let invalidUsers = "invalidUsers"
}
