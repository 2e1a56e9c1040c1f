import Foundation
import PushCore

extension AppOpen {
    /// `POST /1.1/events/AppOpened`: `{"installationId"|"objectId", "notificationId"?, "at"?}`. An open
    /// reported here is a push open: attributed when it can be, else counted as a plain app open.
    public static func parseEvent(_ body: [String: JSON]) throws(LeanError) -> AppOpen {
        let installation: Installation
        if let id = nonEmptyString(body["objectId"]) {
            installation = .objectId(id)
        } else if let id = nonEmptyString(body["installationId"]) {
            installation = .installationId(id)
        } else {
            throw .missingField("installationId or objectId is required.")
        }
        if let nid = body["notificationId"], !nid.isNull, nonEmptyString(nid) == nil {
            throw .invalidParameter("notificationId must be a string.")
        }
        return AppOpen(
            installation: installation, kind: .push, notificationId: nonEmptyString(body["notificationId"]),
            at: try body["at"].flatMap { v throws(LeanError) in v.isNull ? nil : try time(v, field: "at") })
    }

    /// `POST /1.1/stats/collect` in the LeanCloud analytics SDK format: a `device` (or `client`) object
    /// naming the installation (`installationId`/`installation_id`, or `objectId`), and `events`, either an
    /// array or `{"event": [...]}`, whose items have an `event` (or `name`) and optionally `ts` (unix ms)
    /// and `attr` (`_nid` or `notificationId`). Only `!AV!AppOpen` and `!AV!PushOpen` are tracked; the
    /// other analytics events are accepted and ignored.
    public static func parseCollect(_ body: [String: JSON]) throws(LeanError) -> [AppOpen] {
        let device = body["device"]?.objectValue ?? body["client"]?.objectValue ?? [:]
        let installation: Installation
        if let id = nonEmptyString(device["installationId"] ?? device["installation_id"]) {
            installation = .installationId(id)
        } else if let id = nonEmptyString(device["objectId"]) {
            installation = .objectId(id)
        } else {
            throw .missingField("device.installationId is required.")
        }
        guard let items = body["events"]?.arrayValue ?? body["events"]?["event"]?.arrayValue else {
            throw .missingField("events must be an array of analytics events.")
        }
        var opens: [AppOpen] = []
        for item in items {
            let name = item["event"]?.stringValue ?? item["name"]?.stringValue
            let kind: Kind
            switch name {
            case "!AV!AppOpen": kind = .app
            case "!AV!PushOpen": kind = .push
            default: continue
            }
            let attr = item["attr"] ?? item["attributes"] ?? .null
            let at = try item["ts"].flatMap { v throws(LeanError) in v.isNull ? nil : try time(v, field: "ts") }
            opens.append(
                AppOpen(
                    installation: installation, kind: kind,
                    notificationId: nonEmptyString(attr["_nid"] ?? attr["notificationId"]), at: at))
        }
        return opens
    }

    private static func nonEmptyString(_ value: JSON?) -> String? {
        guard let s = value?.stringValue, !s.isEmpty else { return nil }
        return s
    }

    /// An ISO 8601 text, a LeanCloud `{"__type":"Date","iso":...}`, or unix milliseconds.
    private static func time(_ value: JSON, field: String) throws(LeanError) -> Date {
        if let d = LeanDate.parse(value) { return d }
        if let ms = value.intValue { return Date(timeIntervalSince1970: Double(ms) / 1000) }
        throw .invalidParameter("\(field) must be an ISO 8601 date or unix milliseconds.")
    }
}
