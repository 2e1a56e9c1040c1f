import Foundation
import Postgres
import PushCore

/// A row of `notifications`, rendered as LeanCloud's push record.
public struct PushRecord: Sendable {
    public let json: JSON

    static let columns = """
        object_id, notification_id, data, where_query, prod, status, devices, successes, errors, invalid_tokens,
        ios_successes, android_successes, windows_successes, channel_pending, opens, push_time, expiration_time,
        created_at, updated_at, error_reasons, vendor_successes
        """

    init(row: PGRow) throws {
        var o: [String: JSON] = [
            "objectId": .string(try row.string("object_id")), "data": try row.json("data"),
            "where": try row.json("where_query"), "prod": .string(try row.string("prod")),
            "status": .string(try row.string("status")),
            "createdAt": .string(LeanDate.format(try row.date("created_at"))),
            "updatedAt": .string(LeanDate.format(try row.date("updated_at"))),
        ]
        for (key, column) in [
            ("devices", "devices"), ("successes", "successes"), ("errors", "errors"),
            ("invalidTokens", "invalid_tokens"),
            ("iosSuccesses", "ios_successes"), ("androidSuccesses", "android_successes"),
            ("windowsSuccesses", "windows_successes"), ("opens", "opens"),
            // Messages waiting on the own device channel: neither successes nor errors until acked or expired.
            ("channelPending", "channel_pending"),
        ] {
            o[key] = .int(try row.int64(column))
        }
        // Per-reason error counts, so a bad key is told apart from bad tokens at a glance.
        o["errorReasons"] = try row.json("error_reasons")
        // Android successes by vendor (SPEC §12.3), every counter present.
        let vendors = try row.json("vendor_successes")
        for counter in AndroidVendor.counters { o[counter] = .int(vendors[counter]?.intValue ?? 0) }
        if let id = row["notification_id"] { o["notificationId"] = .string(id) }
        if let t = row.optionalDate("push_time") { o["push_time"] = .string(LeanDate.format(t)) }
        if let t = row.optionalDate("expiration_time") { o["expiration_time"] = .string(LeanDate.format(t)) }
        json = .object(o)
    }
}

extension PushRecord {
    /// The counters a merged record sums over its requests.
    static let summedKeys =
        [
            "devices", "successes", "errors", "invalidTokens", "iosSuccesses", "androidSuccesses",
            "windowsSuccesses", "opens", "channelPending",
        ] + AndroidVendor.counters

    /// `members` (in creation order) as one record: the first request's content, objectId, createdAt and
    /// schedule; the counters and `errorReasons` summed; the latest `updatedAt`; `status` as given (SQL decides
    /// it, for listing and filtering alike); and, when they share a `notification_id`, every request's objectId
    /// under `objectIds`. A request without one is its own record, unchanged.
    init(merged members: [PushRecord], status: String) {
        guard var out = members.first?.json.objectValue else {
            self.json = [:]
            return
        }
        out["status"] = .string(status)
        if out["notificationId"] != nil {
            out["objectIds"] = .array(members.compactMap { $0.json["objectId"] })
        }
        if members.count > 1 {
            for key in Self.summedKeys {
                out[key] = .int(members.reduce(0) { $0 + ($1.json[key]?.intValue ?? 0) })
            }
            var reasons: [String: Int64] = [:]
            for member in members {
                for (reason, count) in member.json["errorReasons"]?.objectValue ?? [:] {
                    reasons[reason, default: 0] += count.intValue ?? 0
                }
            }
            out["errorReasons"] = .object(reasons.mapValues { .int($0) })
            out["updatedAt"] = members.compactMap { $0.json["updatedAt"] }.max {
                ($0.stringValue ?? "") < ($1.stringValue ?? "")
            }
        }
        self.json = .object(out)
    }
}
