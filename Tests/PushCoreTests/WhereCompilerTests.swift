import PushCore
import Testing

/// The SQL shape the `where` compiler emits, checked without a database.
struct WhereCompilerTests {
    let compiler = WhereCompiler(schema: .installations)

    func render(_ query: String) throws -> (sql: String, binds: [String?]) {
        try compiler.compile(try JSON.parse(query)).render()
    }

    @Test func emptyAndNullWhereMatchEverything() throws {
        #expect(try compiler.compile([:]).render().sql == "TRUE")
        #expect(try compiler.compile(.null).render().sql == "TRUE")
    }

    @Test func equalityIsIndexFriendlyContainmentWithEverythingBound() throws {
        let r = try render(#"{"channels":"public"}"#)
        #expect(r.sql == "((data -> $1::text) @> $2::jsonb)")
        #expect(r.binds == ["channels", #""public""#])
    }

    @Test func dotPathsBindOneKeyPerSegment() throws {
        let r = try render(#"{"profile.city":"Beijing"}"#)
        #expect(r.sql == "((data -> $1::text -> $2::text) @> $3::jsonb)")
        #expect(r.binds == ["profile", "city", #""Beijing""#])
    }

    @Test func aliasQualifiesEveryColumn() throws {
        let aliased = WhereCompiler(schema: QuerySchema.installations.aliased("i"))
        let r = try aliased.compile(try JSON.parse(#"{"badge":1,"objectId":"x"}"#)).render()
        #expect(r.sql == "(((i.data -> $1::text) @> $2::jsonb) AND (i.object_id = $3::text))")
        #expect(
            try aliased.compileOrder("name").render().sql
                == "(i.data -> $1::text) ASC NULLS FIRST, i.object_id ASC")
    }

    @Test func severalFieldsAreAndedInSortedKeyOrder() throws {
        let r = try render(#"{"deviceType":"ios","badge":{"$gte":1,"$lt":5}}"#)
        #expect(r.binds == ["badge", "1", "badge", "5", "deviceType", #""ios""#])
        #expect(r.sql.hasPrefix("((jsonb_path_exists((data -> $1::text), 'lax $[*] ? (@ >= $v)'"))
        #expect(r.sql.contains("'lax $[*] ? (@ < $v)'"))
        #expect(r.sql.hasSuffix(" AND ((data -> $5::text) @> $6::jsonb))"))
    }

    @Test func sameQueryAlwaysCompilesToTheSameSQL() throws {
        let query = #"{"z":1,"a":{"$in":[1,2]},"m":{"$exists":true},"$or":[{"b":1},{"c":2}]}"#
        let first = try render(query)
        for _ in 0..<5 { #expect(try render(query) == first) }
    }

    @Test func notEqualMatchesMissingFieldsThroughCoalesce() throws {
        let r = try render(#"{"name":{"$ne":"alice"}}"#)
        #expect(r.sql == "NOT COALESCE(((data -> $1::text) @> $2::jsonb), FALSE)")
    }

    /// One statement: each `$nor` clause and a `$not` expression is coalesced before it is negated, so a NULL
    /// (missing field) never flips into "no match".
    @Test func norAndNotNegateThroughCoalesceInOneStatement() throws {
        let r = try render(#"{"$nor":[{"a":1},{"b":{"$not":{"$in":[2]}}}]}"#)
        #expect(
            r.sql
                == "(NOT COALESCE(((data -> $1::text) @> $2::jsonb), FALSE) AND NOT COALESCE("
                + "NOT COALESCE(((data -> $3::text) @> $4::jsonb), FALSE), FALSE))")
        #expect(r.binds == ["a", "1", "b", "2"])
    }

    @Test func nullEqualityMatchesMissingOrNull() throws {
        #expect(try render(#"{"name":null}"#).sql == "COALESCE((data -> $1::text) @> 'null'::jsonb, TRUE)")
    }

    @Test func pointersAreMatchedAloneOrInsideArrays() throws {
        let r = try render(#"{"owner":{"__type":"Pointer","className":"_User","objectId":"u1","extra":1}}"#)
        #expect(r.sql == "((data -> $1::text) @> $2::jsonb OR (data -> $3::text) @> $4::jsonb)")
        let pointer = #"{"__type":"Pointer","className":"_User","objectId":"u1"}"#
        #expect(r.binds == ["owner", pointer, "owner", "[\(pointer)]"])
    }

    @Test func otherObjectsAndArraysCompareExactly() throws {
        let r = try render(#"{"tags":["a","b"]}"#)
        #expect(r.sql.hasPrefix("((data -> $1::text) = $2::jsonb OR EXISTS (SELECT 1 FROM jsonb_path_query("))
        #expect(r.binds == ["tags", #"["a","b"]"#, "tags", #"["a","b"]"#])
    }

    @Test func datesBindTheirCanonicalInstant() throws {
        let r = try render(#"{"lastSeen":{"$gt":{"__type":"Date","iso":"2024-01-10T08:00:00+08:00"}}}"#)
        #expect(r.binds == ["lastSeen", "2024-01-10T00:00:00.000Z"])
        #expect(r.sql.contains("(pl_elem.v ->> 'iso')::timestamptz"))
        #expect(r.sql.hasSuffix(" > $2::timestamptz)"))
    }

    @Test func createdAtAndObjectIdUseTheirColumns() throws {
        let r = try render(#"{"createdAt":{"$gte":"2024-01-01T08:00:00+08:00"},"objectId":{"$lt":"m"}}"#)
        #expect(r.sql == #"((created_at >= $1::timestamptz) AND (object_id COLLATE "C" < $2::text))"#)
        #expect(r.binds == ["2024-01-01T00:00:00.000Z", "m"])
        let date = try render(#"{"updatedAt":{"__type":"Date","iso":"2024-01-01T00:00:00Z"}}"#)
        #expect(date.sql == "(updated_at = $1::timestamptz)")
    }

    @Test func columnsMatchNothingForValuesOfAnotherType() throws {
        #expect(try render(#"{"objectId":5}"#).sql == "FALSE")
        #expect(try render(#"{"objectId":{"$size":1}}"#).sql == "FALSE")
        #expect(try render(#"{"objectId":null}"#).sql == "object_id IS NULL")
        #expect(try render(#"{"objectId":{"$exists":true}}"#).sql == "object_id IS NOT NULL")
    }

    @Test func inIsOneContainmentPerValueAndEmptyListsAreConstant() throws {
        let r = try render(#"{"channels":{"$in":["a","b"]}}"#)
        #expect(r.sql == "(((data -> $1::text) @> $2::jsonb) OR ((data -> $3::text) @> $4::jsonb))")
        #expect(r.binds == ["channels", #""a""#, "channels", #""b""#])
        #expect(try render(#"{"channels":{"$in":[]}}"#).sql == "FALSE")
        #expect(try render(#"{"channels":{"$nin":[]}}"#).sql == "NOT COALESCE(FALSE, FALSE)")
        #expect(try render(#"{"channels":{"$all":[]}}"#).sql == "FALSE")
        let all = try render(#"{"channels":{"$all":["a","b"]}}"#)
        #expect(all.sql == "(((data -> $1::text) @> $2::jsonb) AND ((data -> $3::text) @> $4::jsonb))")
    }

    @Test func existsAndSizeShapes() throws {
        #expect(
            try render(#"{"a":{"$exists":true}}"#).sql
                == "(COALESCE(jsonb_typeof((data -> $1::text)), 'null') <> 'null')")
        #expect(
            try render(#"{"a":{"$exists":false}}"#).sql
                == "(COALESCE(jsonb_typeof((data -> $1::text)), 'null') = 'null')")
        let size = try render(#"{"a":{"$size":3}}"#)
        #expect(
            size.sql == "(CASE WHEN jsonb_typeof((data -> $1::text)) = 'array' "
                + "THEN jsonb_array_length((data -> $2::text)) END = $3::integer)")
        #expect(size.binds == ["a", "a", "3"])
    }

    @Test func regexBindsTheTranslatedPattern() throws {
        let r = try render(#"{"channels":{"$regex":"\\Qpublic.x\\E","$options":"i"}}"#)
        #expect(
            r.sql == "EXISTS (SELECT 1 FROM jsonb_path_query((data -> $1::text), 'lax $[*]') AS pl_elem(v) "
                + "WHERE jsonb_typeof(pl_elem.v) = 'string' AND (pl_elem.v #>> '{}') ~ $2::text)")
        #expect(r.binds == ["channels", #"(?pi)public\.x"#])
        #expect(try render(#"{"objectId":{"$regex":"^a"}}"#).sql == "(object_id ~ $1::text)")
    }

    @Test func orAndNestWithParentheses() throws {
        let r = try render(#"{"$or":[{"a":1},{"$and":[{"b":2},{"c":3}]}]}"#)
        #expect(
            r.sql == "(((data -> $1::text) @> $2::jsonb) OR (((data -> $3::text) @> $4::jsonb) "
                + "AND ((data -> $5::text) @> $6::jsonb)))")
        #expect(try render(#"{"$or":[{}]}"#).sql == "TRUE")
    }

    @Test func hostileValuesOnlyEverTravelAsBinds() throws {
        let attack = "x'; DROP TABLE installations; --"
        let queries: [JSON] = [
            ["note": .string(attack)],
            ["note": ["$regex": .string(attack)]],
            ["note": ["$in": [.string(attack)]]],
            ["note": ["$gt": .string(attack)]],
            ["objectId": .string(attack)],
            ["note": ["$ne": ["nested": .string(attack)]]],
            ["DROP_TABLE_installations": 1],
        ]
        for query in queries {
            let r = try compiler.compile(query).render()
            #expect(!r.sql.contains("DROP"), "\(r.sql)")
            #expect(!r.sql.contains("x'"), "\(r.sql)")
            #expect(r.binds.contains { $0?.contains("DROP") == true })
        }
    }

    @Test func hostileFieldNamesAreRefused() {
        for name in [
            "a'b", "'; DROP TABLE installations; --", "a b", "a..b", ".a", "a.", "1abc", "", "a-b",
            "ä", "a\"b", "a)",
        ] {
            #expect(throws: QueryError.invalidQuery("invalid field name '\(name)'")) {
                try compiler.compile(.object([name: 1]))
            }
        }
    }
}
