import Postgres
import PushCore

extension PGConnection {
    /// Has PostgreSQL compile every `$regex` of a compiled `where` now. `~` compiles its pattern only when it
    /// first meets a row, so a bad pattern would otherwise fail a query later (a 500 on a listing, a push
    /// failing in the fan-out) or never, on an empty table. A bad one is LeanCloud's code 102.
    public func checkRegexes(of condition: BoundSQL) async throws {
        guard !condition.regexPatterns.isEmpty else { return }
        do {
            // count(*) over every pattern: each is compiled, none short-circuits the others.
            try await query("SELECT count(*) FROM unnest(\(condition.regexPatterns)::text[]) AS p WHERE '' ~ p")
        } catch let error as PGError where error.sqlState == PGError.invalidRegularExpression {
            throw LeanError.invalidQuery("Invalid $regex: \(error.message).")
        }
    }
}
