import NIOCore

/// OAuth access tokens the token endpoint issued, with their expiry, so the FCM look-alike can check bearers.
struct AccessTokenStore {
    private var expiries: [String: NIODeadline] = [:]

    mutating func issue(lifetime: TimeAmount, now: NIODeadline = .now()) -> String {
        // Expired tokens are swept on issue, which is rare, instead of on every FCM request.
        if self.expiries.count >= 1024 {
            self.expiries = self.expiries.filter { $0.value > now }
        }
        var generator = SystemRandomNumberGenerator()
        let token = "ya29.sim-" + HexDigits.encode((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) })
        self.expiries[token] = now + lifetime
        return token
    }

    func isValid(_ token: Substring, now: NIODeadline = .now()) -> Bool {
        guard let expiry = self.expiries[String(token)] else { return false }
        return expiry > now
    }

    mutating func removeAll() {
        self.expiries.removeAll()
    }
}
