/// Which targets of a batch have their outcome recorded (`push_batches.recorded`: bit i for `targets[i]`).
/// A batch is recorded in parts while it is sent, so a sender taking over after a crash sends only the rest.
public struct RecordedTargets: Sendable, Equatable {
    private var flags: [Bool]

    /// From PostgreSQL's text of a `varbit` (`"0110"`); nil (no part recorded yet) or a length other than the
    /// batch's is read as nothing recorded.
    init(bits: String?, count: Int) {
        flags = [Bool](repeating: false, count: count)
        guard let bits, bits.utf8.count == count else { return }
        for (i, bit) in bits.utf8.enumerated() where bit == UInt8(ascii: "1") { flags[i] = true }
    }

    public init(none count: Int) { flags = [Bool](repeating: false, count: count) }

    public func contains(_ index: Int) -> Bool { flags[index] }

    /// The indices still to be sent and recorded, in order.
    public var unrecorded: [Int] { flags.indices.filter { !flags[$0] } }

    public var isComplete: Bool { !flags.contains(false) }

    mutating func insert(_ index: Int) { flags[index] = true }

    /// As a `varbit` literal's text.
    var bits: String { String(flags.map { $0 ? "1" : "0" }) }
}
