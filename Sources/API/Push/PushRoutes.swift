import Foundation
import HTTPEdge
import HTTPTypes
import Hummingbird
import Ledger
import PushCore

/// `/push`, `/push/devices`, push records and scheduled pushes (SPEC §4).
public struct PushRoutes: Sendable {
    let pushes: PushCommands
    let queries: PushQueries
    let objects: ObjectQueries

    public init(pushes: PushCommands, queries: PushQueries, objects: ObjectQueries) {
        self.pushes = pushes
        self.queries = queries
        self.objects = objects
    }

    public func register(on router: some RouterMethods<AppRequestContext>) {
        router.post("push") { request, context in try await push(request, context, devices: false) }
        router.post("push/devices") { request, context in try await push(request, context, devices: true) }
        for base in ["notifications", "tables/Notifications"] {
            router.get(RouterPath(base + "/:objectId")) { request, context in try await record(request, context) }
        }
        router.get("notifications") { request, context in try await list(request, context) }
        router.delete("notifications/:objectId") { request, context in try await delete(request, context) }
        router.get("scheduledPushMessages") { request, context in try await scheduled(request, context) }
        router.delete("scheduledPushMessages/:id") { request, context in try await cancel(request, context) }
    }

    func push(_ request: Request, _ context: AppRequestContext, devices: Bool) async throws -> Response {
        let app = try context.requireApp()
        if !context.isMaster && !app.boolSetting("client_push") {
            throw LeanError.forbidden("Pushes from clients are not allowed; use the master key or enable client_push.")
        }
        // /push bodies are capped at 4096 bytes (SPEC §4.1); a device list of 500 tokens needs more, and its
        // payload is still held to the provider's size limit.
        let body = try await request.jsonObject(limit: devices ? APILimits.maxBodyBytes : APILimits.maxPushBodyBytes)
        let headerProd = HTTPField.Name("X-LC-Prod").flatMap { request.headers[$0] }
        let accepted = try await PushSubmission(pushes: pushes, objects: objects).submit(
            body, devices: devices, headerProd: headerProd, app: app, rights: QueryRights(isMaster: context.isMaster),
            metadata: context.metadata(for: request))
        return JSONResponse.make(["objectId": .string(accepted.objectId), "createdAt": .string(accepted.createdAt)])
    }

    func record(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let id = try context.parameters.require("objectId")
        guard let found = try await queries.get(appId: app.appId, pushId: id) else { throw LeanError.notFound() }
        return JSONResponse.make(found.json)
    }

    func list(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        let limit = Int(request.query("limit") ?? "") ?? 100
        let skip = Int(request.query("skip") ?? "") ?? 0
        guard (0...1000).contains(limit), skip >= 0 else {
            throw LeanError.invalidParameter("limit must be 0 to 1000 and skip non-negative.")
        }
        let records = try await queries.list(appId: app.appId, limit: limit, skip: skip)
        return JSONResponse.make(["results": .array(records.map(\.json))])
    }

    func delete(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        let id = try context.parameters.require("objectId")
        try await pushes.delete(appId: app.appId, pushId: id, metadata: context.metadata(for: request))
        return JSONResponse.make([:])
    }

    func scheduled(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        return JSONResponse.make(["results": .array(try await queries.scheduled(appId: app.appId))])
    }

    func cancel(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        guard let id = Int64(try context.parameters.require("id")) else {
            throw LeanError.invalidParameter("A scheduled push id is an integer.")
        }
        try await pushes.cancelScheduled(appId: app.appId, scheduleId: id, metadata: context.metadata(for: request))
        return JSONResponse.make([:])
    }
}
