/// A tiny seeded generator: failure-ratio draws must repeat from run to run, which `SystemRandomNumberGenerator`
/// cannot do.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = self.state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// Uniform in `0..<1` from the top 53 bits.
    mutating func nextUnit() -> Double {
        Double(self.next() >> 11) * 0x1.0p-53
    }
}
