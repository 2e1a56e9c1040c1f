/// Counting and injection for the Android vendor look-alikes, whose requests carry many devices each.
extension SimulatorState {
    /// Applies the rule matched for each device (`rules[i]` for `tokens[i]`), counting retry attempts per token, then
    /// the failure ratios once for the request.
    mutating func vendorInjection(tokens: [String], rules: [InjectionRule?], ratios: FailureRatios) -> VendorInjection {
        var injection = VendorInjection(devices: Array(repeating: nil, count: tokens.count))
        for (index, rule) in zip(tokens.indices, rules) {
            guard let rule, let signal = VendorSignal(rawValue: rule.reason) else { continue }
            guard self.isFailing(rule, token: tokens[index]) else { continue }
            switch signal {
            case .unavailable: injection.retry = true
            case .quota: injection.quota = true
            case .invalid, .error: injection.devices[index] = signal
            }
        }
        // Any ratio status means "try again later" to a vendor client, so each vendor answers it with its retry.
        if !injection.retry, !injection.quota, self.transientFailureStatus(ratios) != nil {
            injection.retry = true
        }
        return injection
    }

    /// Counts one send and its devices, and records the request under every registration id it carried, each with
    /// the reason that device was not delivered.
    mutating func countVendorSend(
        _ vendor: SimulatedProvider, tokens: [String], answer: VendorAnswer, recording: RecordingPolicy,
        record: (_ reason: String?) -> RecordedRequest
    ) {
        self.vendors[vendor, default: VendorStatistics()].count(devices: tokens.count, answer: answer)
        guard recording.isEnabled else { return }
        for (index, token) in tokens.enumerated() {
            let reason =
                answer.refusal ?? (index < answer.deviceReasons.count ? answer.deviceReasons[index] : "unanswered")
            self.countToken(token, accepted: reason == nil, recording: recording) { record(reason) }
        }
    }

    mutating func countVendorHTTPRequest(_ vendor: SimulatedProvider) {
        self.vendors[vendor, default: VendorStatistics()].httpRequests += 1
    }

    mutating func countVendorAuth(_ vendor: SimulatedProvider, rejection: String?) {
        self.vendorAuth[vendor, default: ProviderStatistics()].count(rejection: rejection)
    }
}
