import Ledger
import Metrics
import PushCore

/// The fan-out's Prometheus series (through swift-metrics; the backend is chosen by `serve`).
enum FanOutMetrics {
    static let batchesInFlight = Meter(label: "pushledger_fanout_batches_in_flight")

    /// Counts a recorded batch's outcomes by provider, outcome and reason, so that the counters add up to
    /// the push records' successes and errors: only what was recorded counts, once (a batch recorded by
    /// another worker first returns nil and counts nothing), and targets handed back count when sent.
    static func count(_ targets: [PushTarget], outcomes: [TargetOutcome], recorded: BatchDelivered) {
        var tally: [Key: Int64] = [:]
        for (target, outcome) in zip(targets, outcomes) {
            let provider = PushPlatform(rawValue: target.deviceType)?.providerName ?? "fcm"
            switch outcome {
            case .delivered:
                tally[Key(provider: provider, outcome: "delivered", reason: ""), default: 0] += 1
            case .invalidToken(let reason, _), .disabled(let reason):
                tally[Key(provider: provider, outcome: "invalid_token", reason: reason), default: 0] += 1
            case .failed(let reason):
                tally[Key(provider: provider, outcome: "failed", reason: reason), default: 0] += 1
            case .queued:
                // Counted again when the device acks (ChannelMetrics); here only the hand-over.
                tally[Key(provider: "channel", outcome: "queued", reason: ""), default: 0] += 1
            case .notSent:
                guard recorded.handedBack == nil else { continue }
                let reason = recorded.failures[target.objectId.isEmpty ? target.token : target.objectId] ?? "NotSent"
                tally[Key(provider: provider, outcome: "failed", reason: reason), default: 0] += 1
            }
        }
        for (key, count) in tally {
            Counter(
                label: "pushledger_deliveries_total",
                dimensions: [
                    ("provider", key.provider), ("outcome", key.outcome), ("reason", key.reason),
                ]
            ).increment(by: count)
        }
    }

    struct Key: Hashable {
        let provider: String
        let outcome: String
        let reason: String
    }

    /// The request-duration histogram of one provider; made once per chunk of a batch rather than per
    /// notification (each making looks the series up in the backend's registry under its lock).
    static func providerTimer(_ provider: String) -> Metrics.Timer {
        Metrics.Timer(label: "pushledger_provider_request_duration_seconds", dimensions: [("provider", provider)])
    }

    /// One notification's send to its provider, retries and their backoff included, and how many requests it
    /// took beyond the first.
    static func providerSend(_ provider: String, timer: Metrics.Timer, _ duration: Duration, attempts: Int) {
        timer.recordNanoseconds(duration.nanoseconds)
        if attempts > 1 {
            Counter(label: "pushledger_provider_retries_total", dimensions: [("provider", provider)])
                .increment(by: Int64(attempts - 1))
        }
    }

    static func targetingFailure(_ decision: FanOutFailurePolicy.Decision) {
        let kind: String
        switch decision {
        case .wait: kind = "wait"
        case .retry: kind = "retry"
        case .fail: kind = "fail"
        }
        Counter(label: "pushledger_fanout_targeting_failures_total", dimensions: [("decision", kind)]).increment()
    }
}
