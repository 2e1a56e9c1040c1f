extension QueryError {
    /// The client-facing error, so the API maps query errors like every other one.
    public var leanError: LeanError { LeanError(code, message) }
}
