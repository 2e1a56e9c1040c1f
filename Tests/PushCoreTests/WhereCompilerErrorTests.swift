import PushCore
import Testing

/// Bad queries are refused with LeanCloud code 102 and a message naming the problem.
struct WhereCompilerErrorTests {
    let compiler = WhereCompiler(schema: .installations)

    func error(_ query: String) throws -> QueryError? {
        let json = try JSON.parse(query)
        do {
            _ = try compiler.compile(json)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        (#"{"a":{"$foo":1}}"#, "unknown operator $foo on field 'a'"),
        (#"{"$foo":[{"a":1}]}"#, "unknown top-level operator $foo"),
        (#"{"$not":[{"a":1}]}"#, "unknown top-level operator $not"),
        (#"{"$nor":[]}"#, "$nor expects a non-empty array of queries"),
        (#"{"$nor":{"a":1}}"#, "$nor expects a non-empty array of queries"),
        (#"{"$nor":[1]}"#, "$nor expects an array of query objects, found number"),
        (#"{"a":{"$not":"^a"}}"#, "$not expects an object of operators for field 'a', not string"),
        (#"{"a":{"$not":[{"$regex":"^a"}]}}"#, "$not expects an object of operators for field 'a', not array"),
        (#"{"a":{"$not":{}}}"#, #"$not expects an object of operators for field 'a', such as {"$regex": "^a"}"#),
        (#"{"a":{"$not":{"b":1}}}"#, #"$not expects an object of operators for field 'a', such as {"$regex": "^a"}"#),
        (#"{"a":{"$not":{"$foo":1}}}"#, "unknown operator $foo on field 'a'"),
        (#"{"a":{"$not":{"$options":"i"}}}"#, "$options without $regex on field 'a'"),
        (#"{"a":{"$not":{"$in":5}}}"#, "$in expects an array for field 'a', not number"),
        (#"{"a":{"$in":"x"}}"#, "$in expects an array for field 'a', not string"),
        (#"{"a":{"$nin":{"b":1}}}"#, "$nin expects an array for field 'a', not object"),
        (#"{"a":{"$all":5}}"#, "$all expects an array for field 'a', not number"),
        (#"{"a":{"$exists":"yes"}}"#, "$exists expects true or false for field 'a', not string"),
        (#"{"a":{"$exists":1}}"#, "$exists expects true or false for field 'a', not number"),
        (#"{"a":{"$regex":"x","$options":"g"}}"#, "invalid $options 'g' for field 'a': use i, m, s, x"),
        (#"{"a":{"$regex":"x","$options":1}}"#, "$options expects a string for field 'a', not number"),
        (#"{"a":{"$regex":5}}"#, "$regex expects a string for field 'a', not number"),
        (#"{"a":{"$options":"i"}}"#, "$options without $regex on field 'a'"),
        (#"{"$or":{"a":1}}"#, "$or expects a non-empty array of queries"),
        (#"{"$or":[]}"#, "$or expects a non-empty array of queries"),
        (#"{"$and":[1]}"#, "$and expects an array of query objects, found number"),
        (#"{"a":{"$size":-1}}"#, "$size expects a non-negative integer for field 'a'"),
        (#"{"a":{"$size":"2"}}"#, "$size expects a non-negative integer for field 'a'"),
        (#"{"a":{"$lt":true}}"#, "$lt expects a number, string or Date for field 'a', not boolean"),
        (#"{"a":{"$gte":[1]}}"#, "$gte expects a number, string or Date for field 'a', not array"),
        (#"{"a":{"$gt":null}}"#, "$gt expects a number, string or Date for field 'a', not null"),
        (#"{"a":{"$gt":1,"b":2}}"#, "field 'a' mixes operators and plain keys"),
        (#"{"a":{"__type":"Date","iso":"yesterday"}}"#, "invalid Date value for field 'a'"),
        (#"{"a":{"__type":"Pointer","className":"_User"}}"#, "invalid Pointer value for field 'a'"),
        (#"{"createdAt":5}"#, "field 'createdAt' is a date: compare it with a Date or an ISO 8601 string"),
        (#"{"createdAt":{"$lt":"soon"}}"#, "invalid date 'soon' for field 'createdAt'"),
        (#"{"createdAt":{"$regex":"^2024"}}"#, "$regex cannot apply to date field 'createdAt'"),
        (#"{"objectId.x":"a"}"#, "field 'objectId' has no subfields"),
        (#"["a"]"#, "where must be a JSON object, not array"),
        (#""channels""#, "where must be a JSON object, not string"),
    ])
    func refusedWithCode102(query: String, message: String) throws {
        let error = try error(query)
        #expect(error == QueryError(code: 102, message: message))
    }

    @Test func deeplyNestedQueriesAreRefused() throws {
        var query: JSON = ["a": 1]
        for _ in 0...WhereCompiler.maxDepth { query = ["$or": [query]] }
        #expect(throws: QueryError.invalidQuery("query nested deeper than 16 levels")) {
            try compiler.compile(query)
        }
        var fine: JSON = ["a": 1]
        for _ in 0..<WhereCompiler.maxDepth { fine = ["$and": [fine]] }
        #expect(throws: Never.self) { try compiler.compile(fine) }
    }

    @Test func longHostileNamesAreCutShortInMessages() throws {
        let name = String(repeating: "x'", count: 100)
        let error = try #require(try error("{\"\(name)\":1}"))
        #expect(error.code == 102)
        #expect(error.message.count < 90)
    }

    @Test func errorsDescribeThemselvesWithTheirCode() {
        #expect(QueryError.invalidQuery("bad").description == "102: bad")
        #expect(QueryError.generic("bad").code == 1)
    }
}
