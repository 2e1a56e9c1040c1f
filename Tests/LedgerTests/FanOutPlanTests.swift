import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

@testable import Ledger

/// Which of a push's per-page and per-batch statements PostgreSQL may keep one generic plan for
/// (`PGQuery.reusingPlan()`): the lookups and counter updates by key, whose plan cannot depend on the values,
/// and the batch claim, whose states are literals. The statements whose best plan does (the targeting page,
/// the `last_deliveries` join, the batch row's copy from the log) are planned for their values every time.
@Suite("Fan-out statement plans", .requiresPostgreSQL)
struct FanOutPlanTests {
    /// Beginnings of the statements that must reach a generic plan after a few pages and batches.
    static let keyedStatements = [
        "SELECT coalesce((SELECT version FROM stream_heads",
        "SELECT state, batches, targeted, attempts",
        "UPDATE push_jobs SET state = $1, cursor_object_id",
        "UPDATE push_batches SET recorded",
        "SELECT recorded::text FROM push_batches",
        "UPDATE public.notifications SET devices",
        "UPDATE public.notifications SET successes",
        "UPDATE public.push_stats SET devices",
        "UPDATE public.push_stats SET successes",
        "INSERT INTO public.daily_usage (app_id, day, devices)",
        "INSERT INTO public.daily_usage (app_id, day, successes)",
        "INSERT INTO public.daily_opens (app_id, day, platform, successes)",
        "SELECT devices FROM daily_usage",
        "SELECT pg_notify",
        "WITH c AS MATERIALIZED (",
        "SELECT b.app_id FROM push_batches b",
        "SELECT settings ->> 'timezone' AS zone FROM public.apps",
        "SELECT count(*) AS n FROM push_batches",
    ]

    /// Beginnings of the statements that must be planned for their values at every execution.
    static let valueStatements = [
        "SELECT object_id, device_type, device_token",
        "UPDATE last_deliveries",
        "INSERT INTO push_batches AS b (app_id, push_id, batch_no, targets) SELECT",
    ]

    @Test("a push's keyed statements and its claim keep generic plans; targeting and last_deliveries do not")
    func keyedStatementsKeepGenericPlans() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "x", appId: "plans")
        let t0 = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        _ = try await db.saveIOSInstallations(app: app.appId, count: 10, now: t0 - 60)
        // One connection, so that its prepared statements are every statement the push ran, kept for the whole
        // test (`planCountingLifetime`).
        let single = LedgerComponents(
            databaseURL: db.url, maxConnections: 1, genericPlanLifetime: TestDatabase.planCountingLifetime)
        let pushId = try await SimulatedPushes.push(
            ["channels": ["all"], "data": ["alert": "hi"]], app: app, at: t0, single, pageSize: 1, batchesPerPage: 1)
        try await SimulatedPushes.deliverPending(at: t0, single)
        let record = try #require(try await single.pushQueries.get(appId: app.appId, pushId: pushId))
        #expect(record.json["successes"]?.intValue == 10, "\(record.json)")

        let rows = try await single.pool.query(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
        let plans = try rows.map {
            (
                statement: try $0.string("statement"), generic: try $0.int("generic_plans"),
                custom: try $0.int("custom_plans")
            )
        }
        func matching(_ prefix: String) -> [(statement: String, generic: Int, custom: Int)] {
            plans.filter { $0.statement.replacingOccurrences(of: "\n", with: " ").hasPrefix(prefix) }
        }
        for prefix in Self.keyedStatements {
            let found = matching(prefix)
            #expect(!found.isEmpty, "not run: \(prefix)")
            // Ten pages and ten batches: PostgreSQL plans five times for the values, then keeps the generic plan.
            #expect(found.allSatisfy { $0.generic > 0 }, "\(prefix): \(found.map { ($0.generic, $0.custom) })")
        }
        for prefix in Self.valueStatements {
            let found = matching(prefix)
            #expect(!found.isEmpty, "not run: \(prefix)")
            #expect(found.allSatisfy { $0.generic == 0 && $0.custom >= 10 }, "\(prefix): \(found.map { ($0.custom) })")
        }
    }
}
