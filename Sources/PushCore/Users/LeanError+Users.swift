/// LeanCloud's user error codes (SPEC §12.5), as its SDKs test for them.
extension LeanError {
    public static let usernameMissing = LeanError(.usernameMissing, "Username is missing or empty.")
    public static let passwordMissing = LeanError(.passwordMissing, "Password is missing or empty.")
    public static let usernameTaken = LeanError(.usernameTaken, "Username has already been taken.")
    public static let userNeedsSession = LeanError(
        .sessionMissing, "The user cannot be altered by a client without the session.", kind: .forbidden)
    public static let passwordMismatch = LeanError(.passwordMismatch, "The username and password mismatch.")
    public static let userNotFound = LeanError(.userNotFound, "Could not find user.")
    public static func loginThrottled(retryAfter: Int) -> LeanError {
        LeanError(
            .loginThrottled, "Too many failed login attempts; try again in \(retryAfter) seconds.",
            kind: .tooManyRequests, retryAfterSeconds: retryAfter)
    }
}
