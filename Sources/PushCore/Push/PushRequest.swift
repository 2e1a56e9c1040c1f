import Foundation

/// A validated `POST /1.1/push` or `/1.1/push/devices` request (SPEC §4.1, §4.2). Times are resolved
/// against `now`, so the same body always means the same thing in the log.
public struct PushRequest: Sendable, Equatable {
    public enum Audience: Sendable, Equatable {
        /// Installations matching `where` (with `channels` folded in).
        case query(JSON)
        /// Explicit device ids of one platform: deviceTokens, registrationIds, subscriptionUris or installationIds.
        case devices(platform: PushPlatform, ids: [String])
    }

    public var data: JSON
    public var audience: Audience
    public var pushTime: Date?
    public var expiration: Date?
    public var notificationId: String?
    public var requestId: String?
    public var prod: String
    public var topic: String?
    public var apnsTeamId: String?
    public var deviceProfile: String?
    public var flowControl: Int?
    /// `/push/devices` to Android: the vendor whose registrationIds `device_ids` are (one per call, SPEC §12.3).
    public var vendor: AndroidVendor?
    /// True when `push_time` is at least a minute ahead: the push waits in the schedule.
    public var isScheduled: Bool

    public static let maxDeviceIds = 500
    public static let minimumFlowControl = 1000

    /// The stored form, replayed by workers and shown in `scheduledPushMessages`.
    public var json: JSON {
        var o: [String: JSON] = ["data": data, "prod": .string(prod)]
        switch audience {
        case .query(let w): o["where"] = w
        case .devices(let platform, let ids):
            o["device_type"] = .string(platform.rawValue)
            o["device_ids"] = .array(ids.map { .string($0) })
        }
        if let pushTime { o["push_time"] = .string(LeanDate.format(pushTime)) }
        if let expiration { o["expiration_time"] = .string(LeanDate.format(expiration)) }
        if let notificationId { o["notification_id"] = .string(notificationId) }
        if let requestId { o["req_id"] = .string(requestId) }
        if let topic { o["topic"] = .string(topic) }
        if let apnsTeamId { o["apns_team_id"] = .string(apnsTeamId) }
        if let deviceProfile { o["device_profile"] = .string(deviceProfile) }
        if let flowControl { o["flow_control"] = .int(Int64(flowControl)) }
        if let vendor { o["vendor"] = .string(vendor.rawValue) }
        return .object(o)
    }

    /// Parses a `/push` body. `devicesEndpoint` selects the `/push/devices` shape.
    public static func parse(
        _ body: [String: JSON], devicesEndpoint: Bool, headerProd: String?, now: Date
    )
        throws(LeanError) -> PushRequest
    {
        guard var data = body["data"], !data.isNull else { throw .invalidParameter("Missing push data.") }
        var vendor: AndroidVendor?
        if devicesEndpoint {
            (data, vendor) = try androidDeviceOptions(body, data: data)
        }
        do {
            _ = try PushData(data)
        } catch {
            throw error.leanError
        }
        let audience: Audience
        if devicesEndpoint {
            guard let type = body["device_type"]?.stringValue, let platform = PushPlatform(deviceType: type) else {
                throw .invalidParameter("device_type must be ios, android or windows.")
            }
            guard let list = body["device_ids"]?.arrayValue, !list.isEmpty, list.count <= maxDeviceIds else {
                throw .invalidParameter("device_ids must be an array of 1 to \(maxDeviceIds) ids.")
            }
            var ids: [String] = []
            for item in list {
                guard let id = item.stringValue, !id.isEmpty else {
                    throw .invalidParameter("device_ids must be strings.")
                }
                if platform == .ios, !InstallationFields.isValidDeviceToken(id) {
                    throw .invalidDeviceToken("Invalid device token: \(id).")
                }
                ids.append(platform == .ios ? id.lowercased() : id)
            }
            if vendor != nil, platform != .android {
                throw .invalidParameter("vendor applies to device_type android only.")
            }
            audience = .devices(platform: platform, ids: ids)
        } else {
            var conditions: [JSON] = []
            if let w = body["where"], !w.isNull {
                guard let o = w.objectValue else { throw .invalidQuery("where must be a JSON object.") }
                if !o.isEmpty { conditions.append(w) }
            }
            if let c = body["channels"], !c.isNull {
                guard let list = c.arrayValue else { throw .invalidParameter("channels must be an array.") }
                for item in list {
                    guard let name = item.stringValue, InstallationFields.isValidChannel(name) else {
                        throw .invalidChannel(item.stringValue ?? item.encoded())
                    }
                }
                conditions.append(["channels": ["$in": c]])
            }
            switch conditions.count {
            case 0: audience = .query([:])
            case 1: audience = .query(conditions[0])
            default: audience = .query(["$and": .array(conditions)])
            }
        }
        var pushTime: Date?
        if let value = body["push_time"], !value.isNull {
            pushTime = try date(value, field: "push_time")
        }
        let times = try expirationTimes(body, pushTime: pushTime, now: now)
        let isScheduled = times.isScheduled
        let expiration = times.expiration
        let notificationId = try shortId(body["notification_id"], field: "notification_id")
        let requestId = try shortId(body["req_id"], field: "req_id")
        var prod = headerProd == "0" ? "dev" : "prod"
        if let value = body["prod"], !value.isNull {
            guard let p = value.stringValue, p == "dev" || p == "prod" else {
                throw .invalidParameter("prod must be dev or prod.")
            }
            prod = p
        }
        var flow: Int?
        if let value = body["flow_control"], !value.isNull {
            guard let n = value.intValue, n > 0 else {
                throw .invalidParameter("flow_control must be a positive integer.")
            }
            flow = max(Int(n), minimumFlowControl)
        }
        let profile = body["device_profile"]?.stringValue
        if let profile, !InstallationFields.isValidDeviceProfile(profile) {
            throw .invalidParameter("Invalid device_profile.")
        }
        // Both travel to APNs in request headers.
        let topic = try headerValue(body["topic"], field: "topic", OutboundText.isTopic)
        let teamId = try headerValue(body["apns_team_id"], field: "apns_team_id", OutboundText.isIdentifier)
        return PushRequest(
            data: data, audience: audience, pushTime: pushTime, expiration: expiration,
            notificationId: notificationId, requestId: requestId, prod: prod, topic: topic,
            apnsTeamId: teamId, deviceProfile: profile, flowControl: flow, vendor: vendor,
            isScheduled: isScheduled)
    }

    /// `/push/devices`' Android options (SPEC §12.3): `vendor`, one of LeanCloud's vendor names, and `channel`,
    /// the Android notification channel, which the content carries as `_notificationChannel` unless it has one.
    static func androidDeviceOptions(
        _ body: [String: JSON], data: JSON
    ) throws(LeanError) -> (data: JSON, vendor: AndroidVendor?) {
        var vendor: AndroidVendor?
        if let value = body["vendor"], !value.isNull {
            guard let name = value.stringValue, let known = AndroidVendor(rawValue: name) else {
                throw .invalidParameter(
                    "vendor must be one of " + AndroidVendor.allCases.map(\.rawValue).joined(separator: ", ") + ".")
            }
            vendor = known
        }
        guard let value = body["channel"], !value.isNull else { return (data, vendor) }
        guard let channel = value.stringValue, !channel.isEmpty, channel.utf8.count <= 256 else {
            throw .invalidParameter("channel must be an Android notification channel id.")
        }
        guard case .object(var fields) = data, fields["_notificationChannel"] == nil else { return (data, vendor) }
        fields["_notificationChannel"] = .string(channel)
        return (.object(fields), vendor)
    }

    /// Rebuilds a request from its stored `json`. Its times were resolved and validated when it arrived, so
    /// they are taken as stored and never judged again against another "now".
    public static func stored(_ json: JSON) throws(LeanError) -> PushRequest {
        guard var o = json.objectValue else { throw .invalidParameter("stored push request is not an object") }
        let pushTime = o["push_time"]?.stringValue.flatMap(LeanDate.parse)
        let expiration = o["expiration_time"]?.stringValue.flatMap(LeanDate.parse)
        for key in ["push_time", "expiration_time", "expiration_interval"] { o[key] = nil }
        let devices = o["device_type"] != nil
        var request = try parse(o, devicesEndpoint: devices, headerProd: nil, now: .distantPast)
        request.pushTime = pushTime
        request.expiration = expiration
        request.isScheduled = false
        return request
    }

    /// The longest `expiration_interval` accepted: ten years. Longer ones mean "never" to every provider
    /// (APNs and FCM keep a notification for weeks at most), and unbounded ones overflow date arithmetic.
    public static let maxExpirationInterval: Double = 10 * 365 * 86_400

    /// SPEC §4.1/§4.7: `expiration_interval` counts from `push_time` when one is given, else from `now`; an
    /// expiration at or before `push_time` is a contradiction and refused. An expiration already past is
    /// accepted: the push is recorded as expired and never sent.
    static func expirationTimes(
        _ body: [String: JSON], pushTime: Date?, now: Date
    ) throws(LeanError)
        -> (expiration: Date?, isScheduled: Bool)
    {
        let isScheduled = pushTime.map { $0.timeIntervalSince(now) >= 60 } ?? false
        var expiration: Date?
        if let value = body["expiration_time"], !value.isNull {
            expiration = try date(value, field: "expiration_time")
        }
        if let value = body["expiration_interval"], !value.isNull {
            guard let seconds = value.doubleValue ?? value.stringValue.flatMap(Double.init), seconds.isFinite,
                seconds > 0, seconds <= maxExpirationInterval
            else {
                throw .invalidParameter(
                    "expiration_interval must be a number of seconds above 0 and at most \(Int(maxExpirationInterval))."
                )
            }
            // The interval wins over an expiration_time sent beside it, as before.
            let end = (pushTime ?? now).addingTimeInterval(seconds)
            expiration = end
            guard LeanDate.isRepresentable(end) else {
                throw .invalidParameter("expiration_interval reaches past the year 9999.")
            }
        }
        if let expiration, let pushTime, expiration <= pushTime {
            throw .invalidParameter("expiration_time must be after push_time.")
        }
        return (expiration, isScheduled)
    }

    static func date(_ value: JSON, field: String) throws(LeanError) -> Date {
        guard let d = LeanDate.parse(value) else { throw .invalidParameter("\(field) must be an ISO 8601 date.") }
        return d
    }

    /// A value that goes into a provider request's header: a string in its alphabet, or absent.
    static func headerValue(
        _ value: JSON?, field: String, _ isValid: (String) -> Bool
    ) throws(LeanError) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue, isValid(text) else {
            throw .invalidParameter(
                "Invalid \(field): letters, digits and . - _ only (it is sent in a provider request's header).")
        }
        return text
    }

    static func shortId(_ value: JSON?, field: String) throws(LeanError) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let s = value.stringValue, !s.isEmpty, s.utf8.count <= 16,
            s.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
            })
        else { throw .invalidParameter("\(field) must be 1 to 16 letters or digits.") }
        return s
    }
}
