import Foundation
import Postgres
import PushCore

/// What a push would reach if it were sent now: the console's audience preview. It counts with the fan-out's
/// own condition (`targetCondition`) and skips platforms the push has no content for, as `step` does, so the
/// preview and the record's `devices` can only differ by what changes between the two instants.
public struct AudiencePreview: Sendable, Equatable {
    /// Targets per `deviceType`, sorted by platform name.
    public let devices: [(platform: String, count: Int64)]
    /// Devices the daily quota still allows today (app's time zone).
    public let quotaLeft: Int64
    public let quota: Int64

    public var total: Int64 { devices.reduce(0) { $0 + $1.count } }

    public static func == (a: AudiencePreview, b: AudiencePreview) -> Bool {
        a.quotaLeft == b.quotaLeft && a.quota == b.quota && a.devices.map(\.platform) == b.devices.map(\.platform)
            && a.devices.map(\.count) == b.devices.map(\.count)
    }
}

extension PushTargeting {
    /// Counts the valid installations `request` targets now, per platform, and the quota left today.
    public func preview(_ request: PushRequest, app: App, now: Date? = nil) async throws -> AudiencePreview {
        let now = now ?? store.clock.now()
        return try await store.pool.withConnection { conn in
            let pushData = try PushData(request.data)
            var counts: [String: Int64] = [:]
            switch request.audience {
            case .query(let whereJSON):
                let condition = try Self.targetCondition(app: app, whereJSON: whereJSON, now: now)
                // Grouped as targeting routes them (PushTargeting.step), so the counts agree.
                let rows = try await conn.query(
                    """
                    SELECT device_type, data ->> 'vendor' AS vendor,
                           coalesce(device_token, registration_id, subscription_uri, '') = '' AS no_token,
                           count(*) AS n
                    FROM installations WHERE \(condition) GROUP BY 1, 2, 3
                    """)
                for row in rows {
                    let type = try row.string("device_type")
                    guard let platform = PushPlatform(rawValue: type) else { continue }
                    let route = DeliveryRoute(
                        deviceType: type, vendor: platform == .android ? row["vendor"] : nil,
                        token: row["no_token"] == "t" ? "" : "token")
                    guard pushData.content(for: route) != nil || route.isUnknownVendor else { continue }
                    counts[type, default: 0] += try row.int64("n")
                }
            case .devices(let platform, let ids):
                // The same lookup `/push/devices` records its targets with (invalid tokens dropped).
                let targets = try await PushCommands.deviceTargets(
                    appId: app.appId, platform: platform, ids: ids, vendor: request.vendor, on: conn)
                if !targets.isEmpty { counts[platform.rawValue] = Int64(targets.count) }
            }
            let quota = app.intSetting("daily_push_quota")
            let used = try await PushLimits.devicesToday(app: app, now: now, on: conn)
            return AudiencePreview(
                devices: counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, quotaLeft: max(0, quota - used),
                quota: quota)
        }
    }
}
