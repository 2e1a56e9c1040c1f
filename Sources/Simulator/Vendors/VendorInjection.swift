/// What the injection rules and failure ratios chose for one vendor request that passed the vendor's checks; the
/// vendor's look-alike turns it into its own answer.
struct VendorInjection {
    /// The vendor's retry answer for the whole request: an `unavailable` id within its failing attempts, or a draw
    /// of the failure ratios.
    var retry = false
    /// The vendor's daily-quota answer for the whole request (ignored by vendors without one).
    var quota = false
    /// Per device in request order: `.invalid`, `.error`, or nil to deliver.
    var devices: [VendorSignal?]

    var hasError: Bool { self.devices.contains(.error) }

    /// The indices of the devices not delivered, in request order.
    var undelivered: [Int] { self.devices.indices.filter { self.devices[$0] != nil } }
}
