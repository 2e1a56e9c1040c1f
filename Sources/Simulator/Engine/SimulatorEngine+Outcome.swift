import Foundation

extension SimulatorEngine {
    /// What a provider look-alike answers a request: its validation failure, else an injected failure (rules,
    /// then ratios), counted and recorded under `token` in one turn of the state lock; on success also the next
    /// message number, for the provider's message id.
    func outcome(
        _ provider: SimulatedProvider, _ request: SimulatorRequest, token: String?, validation: ProviderRejection?,
        settings: RuntimeSettings, now: Date
    ) -> (rejection: ProviderRejection?, messageNumber: Int) {
        let rule = validation == nil ? token.flatMap { settings.rule(for: provider, token: $0[...]) } : nil
        return self.state.withLock { state in
            let outcome =
                validation
                ?? state.injectedFailure(provider: provider, token: token, rule: rule, ratios: settings.failureRatios)
            state.count(provider: provider, token: token, rejection: outcome?.reason, recording: settings.recording) {
                RecordedRequest(
                    provider: provider, method: request.method, path: request.path, headers: request.headers,
                    body: request.bodyString, status: outcome?.status ?? 200, reason: outcome?.reason, receivedAt: now
                )
            }
            return (outcome, outcome == nil ? state.nextMessageNumber() : 0)
        }
    }
}
