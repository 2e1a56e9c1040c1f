import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// `pushledger replay` and `pushledger explain` as an operator runs them, after the audience changed and
/// an installation was deleted and another expired.
@Suite("replay and explain commands", .requiresPostgreSQL)
struct ReplayCommandTests {
    @Test("replay prints the objectIds a push targeted then; explain names the excluding condition")
    func commands() async throws {
        let db = try await TestDatabase.make()
        let ledger = db.ledger
        let app = try await ledger.apps.create(name: "rc", appId: "replaycmd")
        let meta = EventMetadata(keyKind: "client")
        let t0 = LeanDate.parse("2026-03-01T00:00:00Z")!
        var ids: [String] = []
        for i in 0..<4 {
            ids.append(
                try await ledger.installations.save(
                    appId: app.appId,
                    body: [
                        "deviceType": "ios", "deviceToken": .string(String(format: "%064x", i + 1)),
                        "channels": [i == 3 ? "sports" : "news"],
                    ], metadata: meta, now: t0
                ).objectId)
        }
        let pushAt = t0.addingTimeInterval(3600)
        let push = try await SimulatedPushes.push(
            ["channels": ["news"], "data": ["alert": "hi"]], app: app, at: pushAt, ledger)
        // Afterwards: one leaves the channel, one is deleted, the sports one joins news, and the rest expire.
        _ = try await ledger.installations.update(
            appId: app.appId, objectId: ids[0], body: ["channels": ["sports"]],
            metadata: meta, now: pushAt.addingTimeInterval(60))
        try await ledger.installations.delete(
            appId: app.appId, objectId: ids[1], metadata: meta, now: pushAt.addingTimeInterval(60))
        _ = try await ledger.installations.update(
            appId: app.appId, objectId: ids[3], body: ["channels": ["news"]],
            metadata: meta, now: pushAt.addingTimeInterval(60))
        _ = try await RetentionJob(store: ledger.events).run(now: pushAt.addingTimeInterval(100 * 86400))

        let replay = try ServerProcess.command(
            [
                "replay", "--app", app.appId, "--at", LeanDate.format(pushAt), "--where", #"{"channels":"news"}"#,
                "--format", "json",
            ], databaseURL: db.url)
        #expect(replay.status == 0, "\(replay.output)")
        let line = try #require(replay.output.split(separator: "\n").first { $0.hasPrefix("[") })
        let replayed = try JSON.parse(Array(line.utf8)).arrayValue?.compactMap(\.stringValue)
        #expect(replayed == ids[0..<3].sorted())

        let explained = try ServerProcess.command(
            [
                "explain", "--app", app.appId, "--push", push, "--installation", ids[3],
            ], databaseURL: db.url)
        #expect(explained.status == 0, "\(explained.output)")
        #expect(explained.output.contains("EXCLUDED by: where.channels"), "\(explained.output)")
        #expect(explained.output.contains("not targeted"))
        // The deleted one was targeted at the time, and explain still finds it.
        let deleted = try ServerProcess.command(
            [
                "explain", "--app", app.appId, "--push", push, "--installation", ids[1], "--format", "json",
            ], databaseURL: db.url)
        #expect(deleted.status == 0, "\(deleted.output)")
        #expect(deleted.output.contains(#""verdict":"targeted""#), "\(deleted.output)")
        #expect(deleted.output.contains(#""excludedBy":null"#))

        let bad = try ServerProcess.command(
            [
                "replay", "--app", app.appId, "--at", LeanDate.format(pushAt), "--where", #"{"channels":{"$bogus":1}}"#,
            ], databaseURL: db.url)
        #expect(bad.status != 0)
        #expect(bad.output.contains("\"code\""))
    }
}
