extension LeanError {
    /// Code 103: a class name that is not a letter followed by letters, digits and underscores, or a reserved
    /// `_` name other than `_User` and `_Installation`.
    public static func invalidClassName(_ name: String) -> LeanError {
        LeanError(.invalidClassName, "Invalid class name: \(name).")
    }

    /// Code 111: a value of the wrong type for its field, or a typed value (`__type`) that is malformed.
    public static func incorrectType(_ message: String) -> LeanError { LeanError(.incorrectType, message) }
}
