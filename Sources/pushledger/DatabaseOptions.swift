import ArgumentParser
import Foundation

/// The database every command works on: `--database-url`, else `DATABASE_URL`.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "libpq URI (env DATABASE_URL)")
    var databaseURL: String?

    func url() throws -> String {
        if let databaseURL { return databaseURL }
        if let env = EnvironmentVariables().string("DATABASE_URL") { return env }
        throw ValidationError("Set DATABASE_URL (a libpq URI such as postgresql://user@127.0.0.1:5432/pushledger).")
    }
}
