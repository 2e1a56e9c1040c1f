import Foundation

/// How long a driver lets answers and submissions gather before its next round of `curl_multi_perform`.
///
/// libcurl 7.88 visits every transfer added to a multi handle in each `curl_multi_perform` (a `poll` of its
/// connection and a clock read each), so a round costs in proportion to the transfers in flight, whatever
/// number of answers it finds. A driver woken by every segment that arrives runs many rounds that each finish
/// a few transfers. Pausing before each round while many transfers are in flight lets one round finish
/// several times as many, for a fraction of a millisecond of latency (docs/decisions.md, "A pause before each
/// round under load"). Below `threshold` transfers in flight nothing waits, so a lone request is answered as
/// soon as its answer arrives.
public struct CurlRoundPause: Sendable, Hashable {
    public var pause: Duration
    /// Transfers in flight from which the driver pauses.
    public var threshold: Int

    public init(pause: Duration, threshold: Int) {
        self.pause = pause
        self.threshold = threshold
    }

    /// 500 µs from 100 transfers in flight: short next to a push's latency, long enough for a round to gather
    /// many answers; the pause lengths tried around it, from a quarter of it to four times it, did no better in
    /// fan-outs.
    public static let standard = CurlRoundPause(pause: .microseconds(500), threshold: 100)
    /// Every round runs as soon as the driver wakes.
    public static let none = CurlRoundPause(pause: .zero, threshold: .max)

    /// The pause before the next round with `inFlight` transfers added to the multi handle, if any.
    func pause(inFlight: Int) -> Duration? {
        inFlight >= threshold && pause > .zero ? pause : nil
    }

    /// Blocks the calling thread (the driver's own) for `duration`.
    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        Thread.sleep(forTimeInterval: TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }
}
