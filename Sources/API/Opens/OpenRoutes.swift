import Foundation
import HTTPEdge
import Hummingbird
import Ledger
import PushCore

/// App-open tracking (SPEC §6): `/stats/collect` as the LeanCloud analytics SDKs send it, and
/// `/events/AppOpened`. Both accept the app key (devices report their own opens) or the master key.
public struct OpenRoutes: Sendable {
    let opens: OpenCommands

    public init(opens: OpenCommands) { self.opens = opens }

    public func register(on router: some RouterMethods<AppRequestContext>) {
        router.post("events/AppOpened") { request, context in try await appOpened(request, context) }
        router.post("stats/collect") { request, context in try await collect(request, context) }
    }

    func appOpened(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let open = try AppOpen.parseEvent(try await request.jsonObject())
        let recorded = try await opens.record(appId: app.appId, open, metadata: context.metadata(for: request))
        return JSONResponse.make(Self.render(recorded), status: .created)
    }

    func collect(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let parsed = try AppOpen.parseCollect(try await request.jsonObject())
        let recorded = try await opens.record(appId: app.appId, parsed, metadata: context.metadata(for: request))
        return JSONResponse.make(["opens": .array(recorded.map(Self.render))])
    }

    static func render(_ recorded: OpenCommands.Recorded) -> JSON {
        [
            "installation": .string(recorded.installationId),
            "notificationId": recorded.pushId.map(JSON.string) ?? .null,
            "attribution": recorded.attribution.map(JSON.string) ?? .null,
        ]
    }
}
