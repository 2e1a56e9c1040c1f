import ArgumentParser
import Ledger
import Postgres
import PushCore

struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app", abstract: "Create apps and change their settings.",
        subcommands: [AppCreateCommand.self, AppSetCommand.self, AppShowCommand.self])
}

struct AppCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create an app; prints its keys as JSON.")

    @OptionGroup var database: DatabaseOptions
    @Option var name: String
    @Option var id: String?
    @Option var key: String?
    @Option(name: .customLong("master-key")) var masterKey: String?

    func run() async throws {
        let ledger = LedgerComponents(databaseURL: try database.url(), maxConnections: 2)
        let app = try await ledger.apps.create(name: name, appId: id, appKey: key, masterKey: masterKey)
        let out: JSON = [
            "appId": .string(app.appId), "appKey": .string(app.appKey), "masterKey": .string(app.masterKey),
        ]
        print(out.encoded())
        await ledger.pool.close()
    }
}

struct AppSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Change settings: key=value … (an empty value removes the setting).")

    @OptionGroup var database: DatabaseOptions
    @Option var app: String
    @Argument var pairs: [String]

    func run() async throws {
        var parsed: [(String, String)] = []
        for pair in pairs {
            guard let eq = pair.firstIndex(of: "=") else { throw ValidationError("Expected key=value, got \(pair).") }
            parsed.append((String(pair[..<eq]), String(pair[pair.index(after: eq)...])))
        }
        let ledger = LedgerComponents(databaseURL: try database.url(), maxConnections: 2)
        let updated = try await ledger.apps.set(appId: app, parsed)
        print(JSON.object(updated.settings).encoded())
        await ledger.pool.close()
    }
}

struct AppShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print an app's keys and settings.")

    @OptionGroup var database: DatabaseOptions
    @Option var app: String

    func run() async throws {
        let ledger = LedgerComponents(databaseURL: try database.url(), maxConnections: 2)
        guard let found = try await ledger.appDirectory.find(app) else {
            throw LeanError.notFound("No app with id \(app).")
        }
        let out: JSON = [
            "appId": .string(found.appId), "name": .string(found.name), "appKey": .string(found.appKey),
            "masterKey": .string(found.masterKey), "settings": .object(found.settings),
        ]
        print(out.encoded())
        await ledger.pool.close()
    }
}
