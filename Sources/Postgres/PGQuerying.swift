/// Runs one statement: a pool (on any connection) or a connection (inside its transaction). Code that owns
/// a set of tables takes one of these, so the same query serves both a transaction and a lone read.
public protocol PGQuerying: Sendable {
    @discardableResult
    func query(_ query: PGQuery) async throws -> PGRows
}

extension PGPool: PGQuerying {}
extension PGConnection: PGQuerying {}
