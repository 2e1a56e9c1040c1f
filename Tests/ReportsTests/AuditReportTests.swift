import Foundation
import Ledger
import PushCore
import Reports
import TestEnvironment
import TestSupport
import Testing

@Suite("Audit report", .requiresPostgreSQL)
struct AuditReportTests {
    static let client = EventMetadata(
        keyKind: "client", address: "10.1.2.3", userAgent: "LeanCloud-iOS/13", requestId: "r1")
    static let master = EventMetadata(keyKind: "master", address: "10.9.9.9", userAgent: "backend/1.0", requestId: "r2")

    /// Real events from the stores, plus a refused push, an app open and an old push written as fixtures.
    static func history(_ f: ReportFixture) async throws -> (cancelled: String, queued: String) {
        let ledger = f.db.ledger
        let saved = try await ledger.installations.save(
            appId: ReportFixture.appId,
            body: ["deviceType": "ios", "deviceToken": .string(String(repeating: "ab", count: 32))],
            metadata: client)
        _ = try await ledger.installations.update(
            appId: ReportFixture.appId, objectId: saved.objectId, body: ["channels": ["news"]], metadata: client)
        let app = try #require(try await ledger.appDirectory.find(ReportFixture.appId))
        func push(_ alert: String) async throws -> String {
            let request = try PushRequest.parse(
                ["where": ["channels": "news"], "data": ["alert": .string(alert)]], devicesEndpoint: false,
                headerProd: nil,
                now: Date())
            return try await ledger.pushes.request(request, app: app, metadata: master).objectId
        }
        let cancelled = try await push("first")
        try await ledger.pushes.delete(appId: ReportFixture.appId, pushId: cancelled, metadata: master)
        let queued = try await push("second")
        let conn = try await f.db.connect()
        let now = LeanDate.format(Date())
        let old = LeanDate.format(Date().addingTimeInterval(-40 * 86_400))
        try await conn.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata) VALUES
              ('rep', 'limits', 1, 'PushQuotaRefused', jsonb_build_object('at', \(now)::text, 'quota', 10, 'used', 10),
               '{"keyKind":"master","address":"10.9.9.9","userAgent":"backend/1.0"}'),
              ('rep', \("installation:" + saved.objectId), 3, 'AppOpened',
               jsonb_build_object('at', \(now)::text, 'kind', 'app', 'platform', 'ios'), '{"keyKind":"client"}'),
              ('rep', 'push:old', 1, 'PushRequested', jsonb_build_object('at', \(old)::text, 'objectId', 'old'),
               '{"keyKind":"master"}')
            """)
        await conn.close()
        return (cancelled, queued)
    }

    @Test func actionsInLogOrderWithTheirResults() async throws {
        let f = try await ReportFixture.make()
        let (cancelled, queued) = try await Self.history(f)
        let rows = try JSON.parse(try await f.run(.audit, format: .json)).arrayValue ?? []
        #expect(
            rows.map { $0["action"]?.stringValue ?? "" } == [
                "AppCreated", "AppSettingsChanged", "InstallationCreated", "InstallationUpdated", "PushRequested",
                "PushCancelled", "NotificationDeleted", "PushRequested", "PushQuotaRefused",
            ])
        #expect(
            rows.map { $0["result"]?.stringValue ?? "" } == [
                "ok", "ok", "ok", "ok", "cancelled", "cancelled", "deleted", "in-queue", "refused",
            ])
        let first = rows[4]
        #expect(first["target"] == .string("push:" + cancelled))
        #expect(rows[7]["target"] == .string("push:" + queued))
        #expect(first["keyKind"] == "master")
        #expect(first["address"] == "10.9.9.9")
        #expect(first["userAgent"] == "backend/1.0")
        #expect(first["detail"]?["where"] == ["channels": "news"])
        #expect(first["detail"]?["data"] == ["alert": "first"])
        #expect(rows[3]["detail"]?["set"]?["channels"] == ["news"])
        #expect(rows[2]["keyKind"] == "client")
        #expect(rows[0]["keyKind"] == "system")
        #expect(
            Set(rows.flatMap { $0.objectValue?.keys.map { $0 } ?? [] })
                == ["at", "keyKind", "address", "userAgent", "action", "target", "detail", "result", "requestId"])
        let at = try #require(rows[0]["at"]?.stringValue)
        #expect(at.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
    }

    @Test func keysAndProviderSecretsNeverAppear() async throws {
        let f = try await ReportFixture.make()
        _ = try await Self.history(f)
        for format in ReportFormat.allCases {
            let text = try await f.run(.audit, format: format)
            for secret in ["plainAppKey123", "plainMasterKey456", "KEYID789"] {
                #expect(!text.contains(secret), "\(format) shows \(secret)")
            }
            #expect(text.contains("com.example.shop"), "\(format) hides a setting that is not secret")
        }
        let rows = try JSON.parse(try await f.run(.audit, format: .json)).arrayValue ?? []
        #expect(rows[0]["detail"]?["appKey"] == "***")
        #expect(rows[0]["detail"]?["masterKey"] == "***")
        #expect(rows[1]["detail"]?["set"]?["apns.key_id"] == "***")
        let csv = try await f.run(.audit, format: .csv)
        #expect(csv.hasPrefix("at,keyKind,address,userAgent,action,target,detail,result,requestId\r\n"))
        #expect(csv.contains(",\"{\"\"data\"\":{\"\"alert\"\":\"\"first\"\"}"))
        try HTMLWellFormedness.check(try await f.run(.audit, format: .html))
    }
}
