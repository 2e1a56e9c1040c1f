import PushCore

extension PushBatches {
    /// What a recorded part comes to: its `PushBatchDelivered` data and the targets handed back unsent. While
    /// the push is `live`, a target not sent goes back to the queue and an own-channel message waits for its
    /// ack; once it is not, both count as errors with `unsentReason`. `invalidTokens` dead tokens of the part
    /// are counted with its vendor-disabled ones; `queued` messages went to the own channel.
    static func tally(
        _ claim: BatchClaim, targets: [PushTarget], outcomes: [TargetOutcome], live: Bool, unsentReason: String,
        invalidTokens: Int64, queued: Int64, at: String
    ) -> (BatchDelivered, handedBack: [PushTarget]) {
        var successes: Int64 = 0, ios: Int64 = 0, android: Int64 = 0, windows: Int64 = 0, errors: Int64 = 0
        var reasons: [String: Int64] = [:]
        var vendorSuccesses: [String: Int64] = [:]
        var failures: [String: String] = [:]
        var handedBack: [PushTarget] = []
        var disabledCount: Int64 = 0
        for (target, outcome) in zip(targets, outcomes) {
            let failure: String
            switch outcome {
            case .delivered:
                successes += 1
                switch PushPlatform(rawValue: target.deviceType) {
                case .ios?: ios += 1
                case .windows?: windows += 1
                case .android?, nil: android += 1
                }
                if let counter = DeliveryRoute(target).vendorCounter { vendorSuccesses[counter, default: 0] += 1 }
                continue
            case .notSent where live:
                handedBack.append(target)
                continue
            case .queued where live:
                continue
            case .notSent, .queued:
                failure = unsentReason
            case .invalidToken(let reason, _), .failed(let reason):
                failure = reason
            case .disabled(let reason):
                failure = reason
                disabledCount += 1
            }
            errors += 1
            reasons[failure, default: 0] += 1
            failures[target.objectId.isEmpty ? target.token : target.objectId] = failure
        }
        let delivered = BatchDelivered(
            objectId: claim.pushId, batch: Int64(claim.batchNo), at: at, successes: successes, iosSuccesses: ios,
            androidSuccesses: android, windowsSuccesses: windows, errors: errors,
            invalidTokens: invalidTokens + disabledCount, reasons: reasons,
            failures: failures, handedBack: handedBack.isEmpty ? nil : Int64(handedBack.count),
            queued: queued == 0 ? nil : queued, vendorSuccesses: vendorSuccesses)
        return (delivered, handedBack)
    }
}
