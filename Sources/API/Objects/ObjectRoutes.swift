import Foundation
import HTTPEdge
import HTTPTypes
import Hummingbird
import Ledger
import PushCore

/// Objects of custom classes (issue 16): `/1.1/classes/:className[/:objectId]`, and `/1.1/batch`.
/// `_Installation` and `_User` keep their own routes (`InstallationRoutes`, `UserRoutes`; their literal paths
/// win over `:className`). Without ACLs, the app key may do everything to ordinary classes, as LeanCloud does
/// for a class without ACLs; listing or batching `_User` needs the master key, since a user's row is theirs.
public struct ObjectRoutes: Sendable {
    let objects: ObjectCommands
    let queries: ObjectQueries

    public init(objects: ObjectCommands, queries: ObjectQueries) {
        self.objects = objects
        self.queries = queries
    }

    public func register(on router: some RouterMethods<AppRequestContext>) {
        router.post("classes/:className") { request, context in
            try await create(request, context, className: context.parameters.require("className"))
        }
        router.get("classes/:className") { request, context in
            try await list(request, context, className: context.parameters.require("className"))
        }
        router.get("classes/:className/:objectId") { request, context in
            try await get(request, context, className: context.parameters.require("className"))
        }
        router.put("classes/:className/:objectId") { request, context in
            try await update(request, context, className: context.parameters.require("className"))
        }
        router.delete("classes/:className/:objectId") { request, context in
            try await delete(request, context, className: context.parameters.require("className"))
        }
        router.post("batch") { request, context in try await batch(request, context) }
    }

    /// One request's target: the app, after checking the key may touch the class at all.
    static func authorize(_ className: String, _ context: AppRequestContext) throws -> String {
        let app = try context.requireApp()
        let className = try ClassName.requireObjectClass(className)
        if className == ClassName.user, !context.isMaster {
            throw LeanError.forbidden(
                "The master key is required to list or batch _User: users sign up with POST /1.1/users and read "
                    + "their own row with their session.")
        }
        return app.appId
    }

    static func location(_ className: String, _ objectId: String) -> String {
        className == ClassName.user ? "/1.1/users/\(objectId)" : "/1.1/classes/\(className)/\(objectId)"
    }

    func create(_ request: Request, _ context: AppRequestContext, className: String) async throws -> Response {
        let appId = try Self.authorize(className, context)
        let body = try await request.jsonObject()
        let created = try await objects.create(
            appId: appId, className: className, body: body, metadata: context.metadata(for: request))
        var headers = HTTPFields()
        headers[.location] = Self.location(className, created.objectId)
        return JSONResponse.make(
            ["objectId": .string(created.objectId), "createdAt": .string(created.createdAt)], status: .created,
            headers: headers)
    }

    func get(_ request: Request, _ context: AppRequestContext, className: String) async throws -> Response {
        let appId = try Self.authorize(className, context)
        let objectId = try context.parameters.require("objectId")
        guard let found = try await queries.get(appId: appId, className: className, objectId: objectId) else {
            throw LeanError.notFound()
        }
        return JSONResponse.make(found.rendered(keys: try InstallationRoutes.keys(request)))
    }

    func update(_ request: Request, _ context: AppRequestContext, className: String) async throws -> Response {
        let appId = try Self.authorize(className, context)
        let objectId = try context.parameters.require("objectId")
        if request.query("where") != nil {
            // A conditional save (Parse's `where` on PUT) that silently saved anyway would be worse than a refusal.
            throw LeanError.invalidParameter("Conditional updates (where on PUT) are not supported.")
        }
        let body = try await request.jsonObject()
        let updatedAt = try await objects.update(
            appId: appId, className: className, objectId: objectId, body: body,
            metadata: context.metadata(for: request))
        return JSONResponse.make(["updatedAt": .string(updatedAt)])
    }

    func delete(_ request: Request, _ context: AppRequestContext, className: String) async throws -> Response {
        let appId = try Self.authorize(className, context)
        let objectId = try context.parameters.require("objectId")
        try await objects.delete(
            appId: appId, className: className, objectId: objectId, metadata: context.metadata(for: request))
        return JSONResponse.make([:])
    }

    func list(_ request: Request, _ context: AppRequestContext, className: String) async throws -> Response {
        let appId = try Self.authorize(className, context)
        let query = try InstallationRoutes.listRequest(request)
        let (results, total) = try await queries.list(
            appId: appId, className: className, query, rights: QueryRights(isMaster: context.isMaster))
        var out: [String: JSON] = ["results": .array(results)]
        if let total { out["count"] = .int(Int64(total)) }
        return JSONResponse.make(.object(out))
    }
}
