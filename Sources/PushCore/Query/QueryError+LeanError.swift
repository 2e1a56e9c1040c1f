extension QueryError {
    /// The client-facing error, so the API maps query errors like every other one.
    public var leanError: LeanError {
        code == Self.forbiddenCode ? .forbidden(message) : LeanError(code, message)
    }
}
