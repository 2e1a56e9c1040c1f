import PushCore

/// The `/_sim/config` representation: `GET` shows it all, `POST` changes only the members it names.
extension RuntimeSettings {
    /// Why a `POST /_sim/config` body was refused.
    struct InvalidSettings: Error {
        var message: String
    }

    var json: JSON {
        .members([
            (
                "latency",
                .members([
                    ("fixedMilliseconds", .integer(self.latency.fixedMilliseconds)),
                    ("jitterMilliseconds", .integer(self.latency.jitterMilliseconds)),
                ])
            ),
            (
                "failureRatios",
                .members([
                    ("tooManyRequests", .double(self.failureRatios.tooManyRequests)),
                    ("internalServerError", .double(self.failureRatios.internalServerError)),
                    ("serviceUnavailable", .double(self.failureRatios.serviceUnavailable)),
                    ("seed", .int(Int64(truncatingIfNeeded: self.failureRatios.seed))),
                ])
            ),
            ("goAwayAfterStreams", self.goAwayAfterStreams.map(JSON.integer) ?? .null),
            (
                "recording",
                .members([
                    ("enabled", .bool(self.recording.isEnabled)),
                    ("requestsPerToken", .integer(self.recording.requestsPerToken)),
                    ("maxCountedTokens", .integer(self.recording.maxCountedTokens)),
                    ("maxRecordedTokens", .integer(self.recording.maxRecordedTokens)),
                ])
            ),
            ("rules", .array(self.rules.map(Self.json(rule:)))),
            ("vendorTokenLifetimeSeconds", self.vendorTokenLifetimeSeconds.map(JSON.integer) ?? .null),
        ])
    }

    private static func json(rule: InjectionRule) -> JSON {
        let match: (String, JSON)
        switch rule.match {
        case .prefix(let prefix): match = ("prefix", .string(prefix))
        case .substring(let needle): match = ("substring", .string(needle))
        }
        return .members([
            ("provider", .string(rule.provider.rawValue)),
            match,
            ("status", .integer(rule.status)),
            ("reason", .string(rule.reason)),
            ("failingAttempts", rule.failingAttempts.map(JSON.integer) ?? .null),
        ])
    }

    mutating func merge(_ document: JSON) throws(InvalidSettings) {
        guard document.isObject else { throw InvalidSettings(message: "expected a JSON object") }
        if let latency = document["latency"] {
            self.latency = SimulatorLatency(
                fixedMilliseconds: try Self.integer(latency["fixedMilliseconds"], self.latency.fixedMilliseconds),
                jitterMilliseconds: try Self.integer(latency["jitterMilliseconds"], self.latency.jitterMilliseconds)
            )
        }
        if let ratios = document["failureRatios"] {
            var merged = self.failureRatios
            merged.tooManyRequests = try Self.ratio(ratios["tooManyRequests"], merged.tooManyRequests)
            merged.internalServerError = try Self.ratio(ratios["internalServerError"], merged.internalServerError)
            merged.serviceUnavailable = try Self.ratio(ratios["serviceUnavailable"], merged.serviceUnavailable)
            merged.seed = UInt64(try Self.integer(ratios["seed"], Int(truncatingIfNeeded: merged.seed)))
            guard merged.tooManyRequests + merged.internalServerError + merged.serviceUnavailable <= 1 else {
                throw InvalidSettings(message: "failure ratios add up to more than 1")
            }
            self.failureRatios = merged
        }
        if let goAway = document["goAwayAfterStreams"] {
            let streams = goAway.isNull ? nil : try Self.integer(goAway, 0)
            self.goAwayAfterStreams = streams.flatMap { $0 > 0 ? $0 : nil }
        }
        if let recording = document["recording"] {
            self.recording = RecordingPolicy(
                isEnabled: recording["enabled"]?.boolValue ?? self.recording.isEnabled,
                requestsPerToken: try Self.integer(recording["requestsPerToken"], self.recording.requestsPerToken),
                maxCountedTokens: try Self.integer(recording["maxCountedTokens"], self.recording.maxCountedTokens),
                maxRecordedTokens: try Self.integer(recording["maxRecordedTokens"], self.recording.maxRecordedTokens)
            )
        }
        if let rules = document["rules"] {
            self.rules = try Self.rules(rules)
        }
        if let lifetime = document["vendorTokenLifetimeSeconds"] {
            self.vendorTokenLifetimeSeconds = lifetime.isNull ? nil : try Self.integer(lifetime, 0)
        }
    }

    private static func rules(_ value: JSON) throws(InvalidSettings) -> [InjectionRule] {
        if value.stringValue == "defaults" { return InjectionRule.defaults }
        guard case .array(let elements) = value else {
            throw InvalidSettings(message: "rules must be an array or \"defaults\"")
        }
        var rules: [InjectionRule] = []
        for element in elements {
            guard let provider = element["provider"]?.stringValue.flatMap(SimulatedProvider.init(rawValue:)) else {
                let names = SimulatedProvider.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw InvalidSettings(message: "rule.provider must be one of \(names)")
            }
            let match: TokenMatch
            if let prefix = element["prefix"]?.stringValue {
                match = .prefix(prefix)
            } else if let needle = element["substring"]?.stringValue {
                match = .substring(needle)
            } else {
                throw InvalidSettings(message: "rule needs \"prefix\" or \"substring\"")
            }
            guard let status = element["status"]?.integerValue, (400..<600).contains(status),
                let reason = element["reason"]?.stringValue
            else { throw InvalidSettings(message: "rule needs a 4xx/5xx \"status\" and a \"reason\"") }
            // A vendor rule names the effect; the vendor's look-alike knows no other reasons.
            if provider.isAndroidVendor, VendorSignal(rawValue: reason) == nil {
                let signals = VendorSignal.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw InvalidSettings(message: "a \(provider.rawValue) rule's reason must be one of \(signals)")
            }
            let attempts = element["failingAttempts"].flatMap { $0.isNull ? nil : $0.integerValue }
            rules.append(
                InjectionRule(
                    provider: provider, match: match, status: status, reason: reason, failingAttempts: attempts)
            )
        }
        return rules
    }

    private static func integer(_ value: JSON?, _ fallback: Int) throws(InvalidSettings) -> Int {
        guard let value else { return fallback }
        guard let integer = value.integerValue, integer >= 0 else {
            throw InvalidSettings(message: "expected a non-negative integer")
        }
        return integer
    }

    private static func ratio(_ value: JSON?, _ fallback: Double) throws(InvalidSettings) -> Double {
        guard let value else { return fallback }
        guard let ratio = value.doubleValue, (0...1).contains(ratio) else {
            throw InvalidSettings(message: "ratios must be between 0 and 1")
        }
        return ratio
    }
}
