/// Transfers whose response arrived whole (final headers and the announced length) but that libcurl has not
/// reported done. Normally libcurl finishes them in the same `perform`; around GOAWAY and connection closes
/// libcurl 7.88 can leave such a stream hanging until its timeout, so the driver completes it after `grace`.
/// Driver thread only.
final class CurlCompletionWatch {
    struct Entry {
        let transfer: CurlTransfer
        let generation: Int
        let since: ContinuousClock.Instant
    }

    let grace: Duration
    var entries: [Entry] = []

    init(grace: Duration = .milliseconds(500)) {
        self.grace = grace
        entries.reserveCapacity(256)
    }

    func add(_ transfer: CurlTransfer) {
        entries.append(Entry(transfer: transfer, generation: transfer.generation, since: .now))
    }
}
