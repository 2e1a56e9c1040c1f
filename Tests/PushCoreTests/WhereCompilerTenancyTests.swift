import Foundation
import PushCore
import Testing

/// The `where` compiler reads a table only in related sub-queries (`$inQuery`, `$notInQuery`, `$select`,
/// `$dontSelect`). Each must be scoped by the app, as every statement around it is: the distributability check
/// (Tests/python/test_distributable_queries.py, docs/scaling.md) stands the compiled `where` in as `TRUE`, so
/// this is where the compiler's own table reads are held to `app_id`.
struct WhereCompilerTenancyTests {
    @Test(arguments: [
        #"{"owner":{"$inQuery":{"className":"_User","where":{"age":{"$gt":3}}}}}"#,
        #"{"owner":{"$notInQuery":{"className":"_User","where":{}}}}"#,
        #"{"owner":{"$inQuery":{"age":{"$gt":3}}}}"#,
        #"{"city":{"$select":{"query":{"className":"Team","where":{"w":1}},"key":"city"}}}"#,
        #"{"city":{"$dontSelect":{"query":{"className":"Team"},"key":"city"}}}"#,
        #"{"o":{"$inQuery":{"className":"A","where":{"p":{"$inQuery":{"className":"B","where":{"q":1}}}}}}}"#,
    ])
    func relatedSubQueriesAreScopedByTheApp(_ query: String) throws {
        let compiled = try WhereCompiler(
            schema: .installations, related: RelatedClasses(appId: "tenant", rights: .master)
        )
        .compile(try JSON.parse(query))
        let (sql, binds) = compiled.render()
        let reads = sql.matches(of: /FROM (\w+) (\w+) WHERE (\w+)\.app_id = \$(\d+)/)
        #expect(!reads.isEmpty)
        // Every table read is one of those, and each binds the app's id.
        #expect(sql.matches(of: /FROM \w+/).count == reads.count)
        for read in reads {
            #expect(read.output.2 == read.output.3)
            #expect(binds[Int(read.output.4)! - 1] == "tenant")
        }
    }
}
