/// The effect of one save on an installation's fields, computed purely from the current fields and the
/// request body. `set` and `unset` are exactly what the `InstallationUpdated` event records.
public struct InstallationUpdate: Sendable, Equatable {
    public var fields: [String: JSON]
    public var set: [String: JSON]
    public var unset: [String]

    /// A save that sets `badge` to 0 is a badge reset, recorded as its own event type.
    public var resetsBadge: Bool { self.set["badge"]?.intValue == 0 }

    /// Applies a request body (field sets and `__op` operations) to `current`.
    /// - Parameters:
    ///   - current: the stored fields, or empty for a new installation.
    ///   - wnsHosts: where a Windows channel URI may point (SPEC §12.7).
    ///   - writer: who saves, for `UserPointerRule` (server-side callers are `.master`).
    public static func apply(
        body: [String: JSON], to current: [String: JSON], isCreate: Bool, wnsHosts: WNSHosts = WNSHosts(),
        writer: Writer = .master
    ) throws(LeanError)
        -> InstallationUpdate
    {
        var fields = current
        var set: [String: JSON] = [:]
        var unset: [String] = []
        for key in body.keys.sorted() {
            if InstallationFields.serverAssigned.contains(key) { continue }
            var newValue = try requestedValue(key, body[key]!, current: fields[key])
            if key == "deviceToken", let token = newValue?.stringValue { newValue = .string(token.lowercased()) }
            if key == "deviceType", let type = newValue?.stringValue, let platform = PushPlatform(deviceType: type) {
                newValue = .string(platform.rawValue)
            }
            if InstallationFields.immutable.contains(key), !isCreate, let existing = current[key], existing != newValue
            {
                throw .immutableField(key)
            }
            if let newValue, !newValue.isNull {
                if let problem = InstallationFields.check(key, newValue) { throw problem }
                // Pointers (`owner`, `user`), GeoPoints, Dates and Bytes are checked as on any other class.
                try TypedValue.validate(newValue)
                // Re-sending an unchanged value (SDKs resend the identity on upsert) records nothing.
                if current[key] != newValue || isCreate { set[key] = newValue }
                fields[key] = newValue
            } else {
                if InstallationFields.immutable.contains(key), current[key] != nil { throw .immutableField(key) }
                fields[key] = nil
                if current[key] != nil || isCreate { unset.append(key) }
            }
        }
        // A vendor that declared the token invalid left the installation `valid: false` with its token (SPEC
        // §12.3); the device's new token makes it valid again, unless the save says otherwise.
        if !isCreate, set["registrationId"] != nil, current["valid"] == .bool(false), body["valid"] == nil {
            set["valid"] = .bool(true)
            fields["valid"] = .bool(true)
        }
        if isCreate {
            try requireIdentity(fields, wnsHosts: wnsHosts)
            unset = []
        } else if fields["deviceType"]?.stringValue == PushPlatform.windows.rawValue,
            set["subscriptionUri"] != nil || unset.contains("subscriptionUri")
        {
            try requireWindowsChannel(fields, wnsHosts: wnsHosts)
        }
        try UserPointerRule.check(set: set, unset: unset, current: current, writer: writer)
        return InstallationUpdate(fields: fields, set: set, unset: unset)
    }

    /// A new installation needs its device type and the identity that type is keyed by.
    static func requireIdentity(_ fields: [String: JSON], wnsHosts: WNSHosts) throws(LeanError) {
        guard let type = fields["deviceType"]?.stringValue else {
            throw .missingField("deviceType is required to create an installation.")
        }
        switch type {
        case "ios":
            if fields["deviceToken"] == nil { throw .missingField("deviceToken is required for an ios installation.") }
        case "android":
            if fields["installationId"] == nil {
                throw .missingField("installationId is required for an android installation.")
            }
        case PushPlatform.windows.rawValue:
            if fields["installationId"] == nil {
                throw .missingField("installationId is required for a windows installation.")
            }
            try requireWindowsChannel(fields, wnsHosts: wnsHosts)
        default:
            break
        }
    }

    /// A Windows installation is reached through its WNS channel URI, so it must have one the server may
    /// send to.
    static func requireWindowsChannel(_ fields: [String: JSON], wnsHosts: WNSHosts) throws(LeanError) {
        guard let uri = fields["subscriptionUri"]?.stringValue else {
            throw .missingField("subscriptionUri is required for a windows installation.")
        }
        _ = try wnsHosts.channelURL(uri)
    }

    /// The value a body's `key` asks for, its `__op` applied to `current`; nil or null removes the field. Throws
    /// for a bad field name (105) or operation.
    static func requestedValue(_ key: String, _ value: JSON, current: JSON?) throws(LeanError) -> JSON? {
        guard InstallationFields.isValidFieldName(key) else { throw .invalidKeyName("Invalid field name: \(key).") }
        if let op = value["__op"]?.stringValue { return try applyOperation(op, value, to: current, field: key) }
        if value["__op"] != nil { throw .invalidParameter("Invalid __op for field \(key).") }
        return value
    }

    static func applyOperation(_ op: String, _ spec: JSON, to current: JSON?, field: String) throws(LeanError) -> JSON?
    {
        switch op {
        case "Delete":
            return nil
        case "Increment", "Decrement":
            let amount = spec["amount"] ?? .int(1)
            guard amount.isNumber else { throw .invalidParameter("\(op) amount for \(field) must be a number.") }
            let base = current ?? .int(0)
            guard base.isNumber else { throw .invalidParameter("Cannot \(op) \(field): it is not a number.") }
            let sign: Int64 = op == "Increment" ? 1 : -1
            // Client numbers never reach unchecked arithmetic: an overflow is the request's error, not a trap.
            let outOfRange = LeanError.invalidParameter("\(op) of \(field) goes out of the range of numbers.")
            if case .int(let a) = amount, case .int(let b) = base {
                let (delta, overflowDelta) = a.multipliedReportingOverflow(by: sign)
                let (sum, overflowSum) = b.addingReportingOverflow(delta)
                guard !overflowDelta, !overflowSum else { throw outOfRange }
                return .int(sum)
            }
            let sum = base.doubleValue! + Double(sign) * amount.doubleValue!
            guard sum.isFinite else { throw outOfRange }
            return .double(sum)
        case "Add", "AddUnique", "Remove":
            guard let objects = spec["objects"]?.arrayValue else {
                throw .invalidParameter("\(op) for \(field) needs an objects array.")
            }
            var items: [JSON]
            switch current {
            case nil, .null?: items = []
            case .array(let a)?: items = a
            default: throw .invalidParameter("Cannot \(op) to \(field): it is not an array.")
            }
            switch op {
            case "Add": items += objects
            case "AddUnique": for o in objects where !items.contains(o) { items.append(o) }
            default: items.removeAll { objects.contains($0) }
            }
            return .array(items)
        default:
            throw .invalidParameter("Unknown __op \(op) for field \(field).")
        }
    }
}
