/// A usage error that has no flag to show usage for, such as an environment variable with a value it cannot
/// take: reported as one `Error: …` line and exit status 64 (`ExitStatus.usage`). Bad flags throw
/// ArgumentParser's `ValidationError` instead, which adds the usage text.
struct UsageError: Error, Sendable {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
