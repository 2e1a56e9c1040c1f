extension PushDataError {
    /// The client-facing error, so the API maps `data` errors like every other one.
    public var leanError: LeanError { LeanError(code, message) }
}
