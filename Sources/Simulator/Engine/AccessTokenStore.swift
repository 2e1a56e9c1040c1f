import NIOCore

/// OAuth access tokens a token endpoint issued, with their expiry, so the look-alike it serves can check bearers.
struct AccessTokenStore {
    private var expiries: [String: NIODeadline] = [:]

    mutating func issue(lifetime: TimeAmount, prefix: String = "ya29.sim-", now: NIODeadline = .now()) -> String {
        // Expired tokens are swept on issue, which is rare, instead of on every FCM request.
        if self.expiries.count >= 1024 {
            self.expiries = self.expiries.filter { $0.value > now }
        }
        var generator = SystemRandomNumberGenerator()
        let token = prefix + HexDigits.encode((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) })
        self.expiries[token] = now + lifetime
        return token
    }

    func isValid(_ token: Substring, now: NIODeadline = .now()) -> Bool {
        guard let expiry = self.expiries[String(token)] else { return false }
        return expiry > now
    }

    /// Issued tokens, expired ones not yet swept included.
    var count: Int { self.expiries.count }

    mutating func removeAll() {
        self.expiries.removeAll()
    }
}
