import Foundation
import PushCore
import TestEnvironment
import Testing

/// Runs compiled `where` and `order` SQL against a real PostgreSQL and checks which installations match.
@Suite(.requiresPSQL)
struct WhereCompilerDatabaseTests {
    /// object_id → data. created_at is 2024-01-0N, updated_at 2024-06-0N for row iN.
    static let rows: [(String, String)] = [
        (
            "i01",
            #"{"deviceType":"ios","channels":["public","sports"],"badge":3,"score":10,"name":"alice","#
                + #""injuryReports":true,"lastSeen":{"__type":"Date","iso":"2024-01-10T00:00:00.000Z"},"#
                + #""owner":{"__type":"Pointer","className":"_User","objectId":"u1"},"#
                + #""profile":{"city":"Beijing","zip":"100000"}}"#
        ),
        (
            "i02",
            #"{"deviceType":"ios","channels":["private"],"badge":0,"score":5.5,"name":"Bob","#
                + #""injuryReports":false,"lastSeen":{"__type":"Date","iso":"2024-03-01T12:00:00.000Z"}}"#
        ),
        (
            "i03",
            #"{"deviceType":"android","installationId":"inst-3","channels":["public"],"score":"10","#
                + #""name":"carol"}"#
        ),
        (
            "i04",
            #"{"deviceType":"android","channels":[],"name":"dave","tags":["a","b","c"],"#
                + #""weird":{"__type":"Date","iso":"2024-02-29T12:00:00"}}"#
        ),
        (
            "i05",
            #"{"deviceType":"android","channels":"public","weird":{"__type":"Date","iso":"0000-01-01T00:00:00Z"}}"#
        ),
        (
            "i06",
            #"{"deviceType":"ios","name":null,"score":null,"weird":{"__type":"Date","iso":"2023-02-29T00:00:00Z"}}"#
        ),
        ("i07", #"{"deviceType":"ios","channels":["PUBLIC","Sports"],"name":"Éva","score":-3}"#),
        (
            "i08",
            #"{"deviceType":"android","channels":["public.news","public-x"],"name":"a.b","#
                + #""weird":[{"__type":"Date","iso":"2024-04-31T00:00:00Z"},{"__type":"Date","iso":"1999-12-31"}]}"#
        ),
        (
            "i09",
            #"{"deviceType":"ios","owners":[{"__type":"Pointer","className":"_User","objectId":"u1"},"#
                + #"{"__type":"Pointer","className":"_User","objectId":"u2"}],"#
                + #""lastSeen":{"__type":"Date","iso":"2024-01-10T08:00:00+08:00"}}"#
        ),
        ("i10", #"{"deviceType":"android","channels":["multi\nline"],"name":"line1\nline2"}"#),
        ("i11", #"{"deviceType":"ios","tags":[["a","b"],"c"],"profile":{"city":"Shanghai"}}"#),
        ("i12", #"{"deviceType":"ios","channels":["public"],"note":"'; DROP TABLE installations; --"}"#),
        ("i13", #"{"deviceType":"android","score":100,"name":"zed","lastSeen":"2024-01-10T00:00:00.000Z"}"#),
        (
            "i14",
            #"{"deviceType":"ios","channels":["sports","public","vip"],"badge":7,"name":"Zoe","#
                + #""weird":{"__type":"Date","iso":"not a date"}}"#
        ),
        ("i15", #"{"deviceType":"android","channels":["中文频道"],"name":"陈"}"#),
    ]

    static var allIDs: Set<String> { Set(rows.map(\.0)) }

    static func ids(_ numbers: Int...) -> Set<String> {
        Set(numbers.map { $0 < 10 ? "i0\($0)" : "i\($0)" })
    }

    static func allBut(_ numbers: Int...) -> Set<String> {
        allIDs.subtracting(numbers.map { $0 < 10 ? "i0\($0)" : "i\($0)" })
    }

    /// `where` JSON → the object_ids it must match.
    static let cases: [(String, Set<String>)] = [
        (#"{}"#, allIDs),
        // Equality on arrays is membership; on a scalar it is equality.
        (#"{"channels":"public"}"#, ids(1, 3, 5, 12, 14)),
        (#"{"deviceType":"android","channels":"public"}"#, ids(3, 5)),
        (#"{"score":10}"#, ids(1)),
        (#"{"injuryReports":true}"#, ids(1)),
        (#"{"injuryReports":{"$ne":true}}"#, allBut(1)),
        (#"{"name":{"$ne":"alice"}}"#, allBut(1)),
        (#"{"name":null}"#, ids(5, 6, 9, 11, 12)),
        (#"{"tags":"c"}"#, ids(4, 11)),
        (#"{"tags":["a","b"]}"#, ids(11)),
        (#"{"profile":{"city":"Shanghai"}}"#, ids(11)),
        (#"{"profile":{"city":"Beijing"}}"#, []),
        (#"{"profile.city":"Beijing"}"#, ids(1)),
        (#"{"profile.city":{"$exists":true}}"#, ids(1, 11)),
        // $regex, with Java's \Q…\E quoting and options.
        (#"{"channels":{"$regex":"\\Qpublic\\E"}}"#, ids(1, 3, 5, 8, 12, 14)),
        (#"{"name":{"$regex":"^\\Qa.\\E"}}"#, ids(8)),
        (#"{"name":{"$regex":"^a."}}"#, ids(1, 8)),
        (#"{"channels":{"$regex":"^public$","$options":"i"}}"#, ids(1, 3, 5, 7, 12, 14)),
        (#"{"channels":{"$regex":"^pub lic$","$options":"x"}}"#, ids(1, 3, 5, 12, 14)),
        (#"{"name":{"$regex":"^line2"}}"#, []),
        (#"{"name":{"$regex":"^line2","$options":"m"}}"#, ids(10)),
        (#"{"name":{"$regex":"line1.line2"}}"#, []),
        (#"{"name":{"$regex":"line1.line2","$options":"s"}}"#, ids(10)),
        (#"{"name":{"$regex":"(?i)^ZED$"}}"#, ids(13)),
        (#"{"name":{"$regex":"\\bb"}}"#, ids(8)),
        (#"{"channels":{"$regex":"^中文"}}"#, ids(15)),
        // $in, $nin, $all, $size, $exists.
        (#"{"channels":{"$in":["private","vip"]}}"#, ids(2, 14)),
        (#"{"channels":{"$in":[]}}"#, []),
        (#"{"channels":{"$nin":["public"]}}"#, allBut(1, 3, 5, 12, 14)),
        (#"{"channels":{"$all":["public","sports"]}}"#, ids(1, 14)),
        (#"{"channels":{"$size":0}}"#, ids(4)),
        (#"{"channels":{"$size":2}}"#, ids(1, 7, 8)),
        (#"{"channels":{"$exists":false}}"#, ids(6, 9, 11, 13)),
        (#"{"name":{"$exists":true}}"#, ids(1, 2, 3, 4, 7, 8, 10, 13, 14, 15)),
        (#"{"score":{"$in":[10,"10"]}}"#, ids(1, 3)),
        (#"{"score":{"$in":[10.0]}}"#, ids(1)),
        (#"{"score":{"$nin":[10,5.5]}}"#, allBut(1, 2)),
        // Comparisons: numbers numerically, strings by code point, never across types.
        (#"{"score":{"$gt":5}}"#, ids(1, 2, 13)),
        (#"{"score":{"$gte":5.5,"$lt":100}}"#, ids(1, 2)),
        (#"{"score":{"$lt":0}}"#, ids(7)),
        (#"{"name":{"$gt":"Z"}}"#, ids(1, 3, 4, 7, 8, 10, 13, 14, 15)),
        (#"{"name":{"$lt":"a"}}"#, ids(2, 14)),
        (#"{"badge":{"$exists":true,"$gt":2}}"#, ids(1, 14)),
        // Dates compare as instants, also across time zones; a malformed stored date never raises.
        (#"{"lastSeen":{"__type":"Date","iso":"2024-01-10T00:00:00.000Z"}}"#, ids(1, 9)),
        (#"{"lastSeen":{"$gt":{"__type":"Date","iso":"2024-02-01T00:00:00Z"}}}"#, ids(2)),
        (#"{"lastSeen":{"$lt":{"__type":"Date","iso":"2024-02-01T00:00:00Z"}}}"#, ids(1, 9)),
        (#"{"lastSeen":{"$in":[{"__type":"Date","iso":"2024-03-01T12:00:00Z"}]}}"#, ids(2)),
        // Impossible stored dates (Feb 29 2023, Apr 31, year 0, garbage) match nothing instead of raising.
        (#"{"weird":{"$lt":{"__type":"Date","iso":"2030-01-01T00:00:00Z"}}}"#, ids(4, 8)),
        (#"{"weird":{"__type":"Date","iso":"1999-12-31T00:00:00Z"}}"#, ids(8)),
        (#"{"weird":{"__type":"Date","iso":"2024-02-29T12:00:00.000Z"}}"#, ids(4)),
        (#"{"weird":{"$exists":true}}"#, ids(4, 5, 6, 8, 14)),
        (#"{"createdAt":{"$gte":{"__type":"Date","iso":"2024-01-05T00:00:00.000Z"}}}"#, allBut(1, 2, 3, 4)),
        (#"{"createdAt":{"$lt":"2024-01-03T00:00:00Z"}}"#, ids(1, 2)),
        (#"{"updatedAt":{"$lte":{"__type":"Date","iso":"2024-06-01T00:00:00Z"}}}"#, ids(1)),
        (#"{"objectId":"i07"}"#, ids(7)),
        (#"{"objectId":{"$in":["i01","i15","nope"]}}"#, ids(1, 15)),
        (#"{"objectId":{"$gt":"i13"}}"#, ids(14, 15)),
        (#"{"objectId":{"$ne":"i01","$regex":"^i0"}}"#, ids(2, 3, 4, 5, 6, 7, 8, 9)),
        // Pointers, alone and in arrays.
        (#"{"owner":{"__type":"Pointer","className":"_User","objectId":"u1"}}"#, ids(1)),
        (#"{"owners":{"__type":"Pointer","className":"_User","objectId":"u2"}}"#, ids(9)),
        // $or / $and, nested.
        (#"{"$or":[{"deviceType":"android","score":100},{"badge":{"$gte":5}}]}"#, ids(13, 14)),
        (#"{"$and":[{"channels":"public"},{"deviceType":"ios"}]}"#, ids(1, 12, 14)),
        (
            #"{"$or":[{"name":"alice"},{"$and":[{"deviceType":"android"},{"channels":{"$exists":false}}]}]}"#,
            ids(1, 13)
        ),
        // $nor: a clause on a missing field does not match, so $nor includes the row; clauses nest.
        (#"{"$nor":[{"channels":"public"}]}"#, allBut(1, 3, 5, 12, 14)),
        (#"{"$nor":[{"score":{"$gt":5}},{"name":{"$regex":"^a"}}]}"#, allBut(1, 2, 8, 13)),
        (
            #"{"$nor":[{"$or":[{"deviceType":"android"},{"badge":{"$gte":5}}]},"#
                + #"{"$and":[{"channels":"public"},{"deviceType":"ios"}]}]}"#,
            ids(2, 6, 7, 9, 11)
        ),
        (#"{"$nor":[{"$nor":[{"name":{"$exists":true}}]}]}"#, ids(1, 2, 3, 4, 7, 8, 10, 13, 14, 15)),
        (#"{"$or":[{"$nor":[{"channels":{"$exists":true}}]},{"score":100}]}"#, ids(6, 9, 11, 13)),
        (#"{"$nor":[{"name":{"$not":{"$exists":true}}}]}"#, ids(1, 2, 3, 4, 7, 8, 10, 13, 14, 15)),
        (#"{"$nor":[{"owner":{"__type":"Pointer","className":"_User","objectId":"u1"}}]}"#, allBut(1)),
        (#"{"deviceType":"ios","$nor":[{"channels":"public"},{"badge":0}]}"#, ids(6, 7, 9, 11)),
        // Field-level $not negates the operator expression; a missing (or null) field is included.
        (#"{"name":{"$not":{"$regex":"^a"}}}"#, allBut(1, 8)),
        (#"{"channels":{"$not":{"$regex":"^public$","$options":"i"}}}"#, allBut(1, 3, 5, 7, 12, 14)),
        (#"{"channels":{"$not":{"$in":["public","private"]}}}"#, allBut(1, 2, 3, 5, 12, 14)),
        (#"{"channels":{"$not":{"$all":["public","sports"]}}}"#, allBut(1, 14)),
        (#"{"channels":{"$not":{"$size":1}}}"#, allBut(2, 3, 10, 12, 15)),
        (#"{"name":{"$not":{"$exists":true}}}"#, ids(5, 6, 9, 11, 12)),
        (#"{"channels":{"$not":{"$exists":false}}}"#, allBut(6, 9, 11, 13)),
        (#"{"score":{"$not":{"$gt":5}}}"#, allBut(1, 2, 13)),
        (#"{"score":{"$not":{"$gte":5,"$lte":10}}}"#, allBut(1, 2)),
        (#"{"badge":{"$exists":true,"$not":{"$gt":2}}}"#, ids(2)),
        (#"{"name":{"$not":{"$eq":null}}}"#, ids(1, 2, 3, 4, 7, 8, 10, 13, 14, 15)),
        (#"{"name":{"$not":{"$not":{"$regex":"^a"}}}}"#, ids(1, 8)),
        (#"{"objectId":{"$not":{"$regex":"^i0"}}}"#, ids(10, 11, 12, 13, 14, 15)),
        (#"{"createdAt":{"$not":{"$lt":"2024-01-03T00:00:00Z"}}}"#, allBut(1, 2)),
        (#"{"lastSeen":{"$not":{"$gt":{"__type":"Date","iso":"2024-02-01T00:00:00Z"}}}}"#, allBut(2)),
        // Hostile values are data, nothing else.
        (#"{"note":"'; DROP TABLE installations; --"}"#, ids(12)),
        (#"{"name":{"$regex":"'; DROP TABLE installations; --"}}"#, []),
    ]

    static let setup: String = {
        var script = """
            SET standard_conforming_strings = on;
            CREATE TEMP TABLE installations (
                app_id text NOT NULL, object_id text NOT NULL, device_type text, device_token text,
                installation_id text, registration_id text, device_profile text, valid boolean, badge bigint,
                data jsonb NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);

            """
        for (n, (id, data)) in rows.enumerated() {
            let day = n + 1 < 10 ? "0\(n + 1)" : "\(n + 1)"
            script +=
                "INSERT INTO installations (app_id, object_id, data, created_at, updated_at) VALUES "
                + "('app', \(PSQLRunner.literal(id)), \(PSQLRunner.literal(data))::jsonb, "
                + "'2024-01-\(day)T00:00:00Z', '2024-06-\(day)T00:00:00Z');\n"
        }
        return script
    }()

    @Test func whereMatchesTheExpectedInstallations() throws {
        let compiler = WhereCompiler(schema: .installations)
        var script = Self.setup
        for (n, (query, _)) in Self.cases.enumerated() {
            let condition = try compiler.compile(try JSON.parse(query))
            script += PSQLRunner.prepareAndExecute(
                "q\(n)",
                select: { sql in
                    "SELECT 'q\(n)|' || coalesce(string_agg(object_id, ',' ORDER BY object_id), '') "
                        + "FROM installations WHERE \(sql)"
                }, condition)
        }
        script += "SELECT 'count|' || count(*) FROM installations;\n"
        let results = try Self.results(PSQLRunner.run(script))
        for (n, (query, expected)) in Self.cases.enumerated() {
            #expect(results["q\(n)"] == expected, "where \(query)")
        }
        #expect(results["count"] == ["15"])
    }

    @Test func orderSortsMissingFirstAndBreaksTiesByObjectId() throws {
        let compiler = WhereCompiler(schema: .installations)
        var script = Self.setup
        let orders = ["-badge,name", "createdAt", "-updatedAt", "score,-objectId", ""]
        for (n, order) in orders.enumerated() {
            script += PSQLRunner.prepareAndExecute(
                "o\(n)",
                select: { sql in
                    "SELECT 'o\(n)|' || string_agg(object_id, ',' ORDER BY \(sql)) FROM installations"
                }, try compiler.compileOrder(order))
        }
        let output = try PSQLRunner.run(script)
        var lines: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { lines[String(parts[0])] = String(parts[1]) }
        }
        // Badge descending (missing last), then name ascending (missing, then JSON null, then by code point).
        #expect(lines["o0"] == "i14,i01,i02,i05,i09,i11,i12,i06,i08,i03,i04,i10,i13,i07,i15")
        #expect(lines["o1"] == (1...15).map { $0 < 10 ? "i0\($0)" : "i\($0)" }.joined(separator: ","))
        #expect(lines["o2"] == (1...15).reversed().map { $0 < 10 ? "i0\($0)" : "i\($0)" }.joined(separator: ","))
        // Missing scores first (by objectId descending), then jsonb's order: null < strings < numbers.
        #expect(lines["o3"] == "i15,i14,i12,i11,i10,i09,i08,i05,i04,i06,i03,i07,i02,i01,i13")
        #expect(lines["o4"] == (1...15).map { $0 < 10 ? "i0\($0)" : "i\($0)" }.joined(separator: ","))
    }

    /// Membership compiles to containment on `(data -> key)`, which a GIN expression index serves once PostgreSQL
    /// plans with the parameter values (custom plans, as for every unnamed libpq statement).
    @Test func membershipUsesAGinIndexOnTheField() throws {
        let compiler = WhereCompiler(schema: .installations)
        var script = Self.setup
        script += "CREATE INDEX installations_channels_gin ON installations USING gin ((data -> 'channels'));\n"
        script += "ANALYZE installations;\nSET enable_seqscan = off;\n"
        let condition = try compiler.compile(["channels": "public"])
        script += PSQLRunner.prepareAndExecute(
            "plan",
            select: { sql in
                "SELECT object_id FROM installations WHERE \(sql)"
            }, condition
        ).replacingOccurrences(of: "EXECUTE plan", with: "EXPLAIN (COSTS OFF) EXECUTE plan")
        let plan = try PSQLRunner.run(script)
        #expect(plan.contains("installations_channels_gin"), "plan:\n\(plan)")
    }

    static func results(_ output: String) -> [String: Set<String>] {
        var results: [String: Set<String>] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            results[String(parts[0])] = Set(parts[1].split(separator: ",").map(String.init))
        }
        return results
    }
}
