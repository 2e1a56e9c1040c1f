import Postgres
import PushCore

/// A run of consecutive `PushTargeted` or `PushBatchDelivered` events of one app (a rebuild's page, a group
/// commit), as the rows of one set-based statement. The three projections that count pushes
/// (`NotificationProjection`, `PushStatsProjection`, `UsageProjection`) add a run's counts per push and per
/// local day with one statement each, where `apply` takes one per event (several statements per push event in
/// a rebuild's page pass). Counts add up in any order; the one value that does not,
/// a push's `updated_at`, is its last event's `at` in the run, as applying them in turn leaves it.
struct PushCounterRun {
    let appId: String
    /// A run of delivered batches (`PushBatchDelivered`), else of targeted pages (`PushTargeted`).
    let delivered: Bool
    /// One row per event, in order: `e(p, at, devices, successes, ios, android, windows, errors, invalid, queued,
    /// reasons, vendors, ord)`; the counts an event type does not carry are 0, and `reasons` and `vendors` (the
    /// Android successes by vendor counter) are `{}` for a `PushTargeted`.
    let rows: PGQuery

    /// The runs this covers, as `applyRuns` groups them: one kind per event type.
    static func kind(_ event: ProjectedEvent) -> String? {
        event.type == PushEvent.targeted || event.type == PushEvent.batchDelivered ? event.type : nil
    }

    /// Per push of the run (`c`, from `e`): the sums, its reasons merged (`{}` without any) and its last `at`.
    static let perPush = """
        SELECT p, sum(devices) AS devices, sum(successes) AS successes, sum(ios) AS ios, sum(android) AS android,
            sum(windows) AS windows, sum(errors) AS errors, sum(invalid) AS invalid, sum(queued) AS queued,
            (array_agg(at ORDER BY ord DESC))[1] AS at,
            coalesce((SELECT jsonb_object_agg(k, n) FROM (
                SELECT k, sum(v::bigint) AS n FROM e AS r, jsonb_each_text(r.reasons) AS j(k, v) WHERE r.p = e.p
                GROUP BY k) AS x), '{}') AS reasons,
            coalesce((SELECT jsonb_object_agg(k, n) FROM (
                SELECT k, sum(v::bigint) AS n FROM e AS r, jsonb_each_text(r.vendors) AS j(k, v) WHERE r.p = e.p
                GROUP BY k) AS x), '{}') AS vendors
        FROM e GROUP BY p
        """

    /// SQL for the jsonb object of counts `current` with those of `added` summed in, key by key (`{}` when both
    /// are empty): how `error_reasons` and `vendor_successes` grow.
    static func addedCounts(_ current: String, _ added: String) -> String {
        """
        coalesce((SELECT jsonb_object_agg(k, coalesce((\(current) ->> k)::bigint, 0) + coalesce((\(added) ->> k)::bigint, 0))
            FROM jsonb_object_keys(\(current) || \(added)) AS k), '{}')
        """
    }

    /// nil when the events are not all of the first one's kind (then `apply` takes them one by one).
    init?(_ events: [ProjectedEvent]) {
        guard let first = events.first, events.allSatisfy({ $0.type == first.type }) else { return nil }
        appId = first.appId
        delivered = first.type == PushEvent.batchDelivered
        var pushIds: [String] = [], ats: [String] = [], reasons: [String] = [], vendors: [String] = []
        var counts = [[Int64]](repeating: [], count: 8)
        for event in events {
            let row: [Int64]
            switch event.event {
            case .push(.targeted(let page)):
                pushIds.append(page.objectId)
                ats.append(page.at)
                reasons.append("{}")
                vendors.append("{}")
                row = [page.devices, 0, 0, 0, 0, 0, 0, 0]
            case .push(.batchDelivered(let b)):
                pushIds.append(b.objectId)
                ats.append(b.at)
                reasons.append(JSON.object(b.reasons.mapValues { .int($0) }).encoded())
                vendors.append(JSON.object((b.vendorSuccesses ?? [:]).mapValues { .int($0) }).encoded())
                row = [
                    0, b.successes, b.iosSuccesses, b.androidSuccesses, b.windowsSuccesses ?? 0, b.errors,
                    b.invalidTokens, b.queued ?? 0,
                ]
            default:
                return nil
            }
            for (i, n) in row.enumerated() { counts[i].append(n) }
        }
        func column(_ i: Int) -> [String] { counts[i].map(String.init) }
        rows = """
            SELECT p, nullif(at, '')::timestamptz AS at, devices, successes, ios, android, windows, errors, invalid,
                queued, reasons, vendors, ord
            FROM unnest(\(pushIds)::text[], \(ats)::text[], \(column(0))::bigint[], \(column(1))::bigint[],
                        \(column(2))::bigint[], \(column(3))::bigint[], \(column(4))::bigint[], \(column(5))::bigint[],
                        \(column(6))::bigint[], \(column(7))::bigint[], \(reasons)::jsonb[], \(vendors)::jsonb[])
                WITH ORDINALITY AS e(p, at, devices, successes, ios, android, windows, errors, invalid, queued,
                                     reasons, vendors, ord)
            """
    }
}
