/// The release `pushledger --version` prints; the one place it is written down.
enum PushLedgerVersion {
    static let current = "0.14.0"
}
