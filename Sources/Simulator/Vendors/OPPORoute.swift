/// OPPO Push's paths, the look-alike's credentials and codes. `/oppo` and `/oppo-global` answer alike but issue
/// their own auth tokens.
enum OPPORoute {
    static let appKey = "sim-oppo-key"
    static let masterSecret = "sim-oppo-master"

    static let authPath = "/server/v1/auth"
    static let unicastBatchPath = "/server/v1/message/notification/unicast_batch"

    static let maxMessages = 1000
    static let maxTitleCharacters = 50
    static let maxContentCharacters = 50
    /// OPPO's window for an auth request's timestamp, either way.
    static let timestampToleranceMilliseconds: Int64 = 10 * 60 * 1000
    /// `target_type` 2 addresses a registration id.
    static let registrationIDTarget = 2

    static let invalidSign = 14
    static let invalidAuthToken = 11
    static let badParameters = 41
    static let dailyQuota = 33
    static let serviceBusy = -2
    static let invalidRegistrationID = 10000
    static let pushFailed = 10001
}
