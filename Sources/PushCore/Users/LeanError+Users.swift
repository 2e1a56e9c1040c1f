/// LeanCloud's user error codes (SPEC §12.5), as its SDKs test for them.
extension LeanError {
    public static let usernameMissing = LeanError(200, "Username is missing or empty.")
    public static let passwordMissing = LeanError(201, "Password is missing or empty.")
    public static let usernameTaken = LeanError(202, "Username has already been taken.")
    public static let userNeedsSession = LeanError(
        206, "The user cannot be altered by a client without the session.", status: 403)
    public static let passwordMismatch = LeanError(210, "The username and password mismatch.")
    public static let userNotFound = LeanError(211, "Could not find user.")
    public static func loginThrottled(retryAfter: Int) -> LeanError {
        LeanError(
            219, "Too many failed login attempts; try again in \(retryAfter) seconds.", status: 429,
            retryAfterSeconds: retryAfter)
    }
}
