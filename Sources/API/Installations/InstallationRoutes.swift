import DeviceChannel
import Foundation
import HTTPEdge
import HTTPTypes
import Hummingbird
import Ledger
import PushCore

/// `_Installation` endpoints under both spellings the SDKs use (SPEC §3).
public struct InstallationRoutes: Sendable {
    let installations: InstallationCommands
    let queries: InstallationQueries
    /// Where sessions are looked up: a pointer at a `_User` is that user's to set (`UserPointerRule`).
    let objects: ObjectQueries

    public init(installations: InstallationCommands, queries: InstallationQueries, objects: ObjectQueries) {
        self.installations = installations
        self.queries = queries
        self.objects = objects
    }

    public func register(on router: some RouterMethods<AppRequestContext>) {
        for base in ["installations", "classes/_Installation"] {
            router.post(RouterPath(base)) { request, context in try await create(request, context) }
            router.get(RouterPath(base)) { request, context in try await list(request, context) }
            router.get(RouterPath(base + "/:objectId")) { request, context in try await get(request, context) }
            router.put(RouterPath(base + "/:objectId")) { request, context in try await update(request, context) }
            router.delete(RouterPath(base + "/:objectId")) { request, context in try await delete(request, context) }
        }
    }

    func create(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let body = try await request.jsonObject()
        let result = try await installations.save(
            appId: app.appId, body: body, metadata: context.metadata(for: request),
            wnsHosts: WNSHosts(settings: app.settings), writer: try await context.writer(objects))
        var out: [String: JSON] = ["objectId": .string(result.objectId), "createdAt": .string(result.createdAt)]
        // The own channel's credential goes only to whoever created the installation (or holds the master
        // key): knowing another device's installationId must not be enough to read its messages.
        if let installationId = body["installationId"]?.stringValue, result.created || context.isMaster {
            out["channelToken"] = .string(ChannelToken.make(app: app, installationId: installationId))
        }
        if result.created {
            var headers = HTTPFields()
            headers[.location] = "/1.1/installations/\(result.objectId)"
            return JSONResponse.make(.object(out), status: .created, headers: headers)
        }
        out["updatedAt"] = .string(result.updatedAt)
        return JSONResponse.make(.object(out))
    }

    func update(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let objectId = try context.parameters.require("objectId")
        let body = try await request.jsonObject()
        let updatedAt = try await installations.update(
            appId: app.appId, objectId: objectId, body: body, metadata: context.metadata(for: request),
            wnsHosts: WNSHosts(settings: app.settings), writer: try await context.writer(objects))
        return JSONResponse.make(["updatedAt": .string(updatedAt)])
    }

    func get(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireApp()
        let objectId = try context.parameters.require("objectId")
        guard let found = try await queries.get(appId: app.appId, objectId: objectId) else {
            throw LeanError.notFound()
        }
        return JSONResponse.make(found.rendered(keys: try Self.keys(request)))
    }

    func delete(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        let objectId = try context.parameters.require("objectId")
        try await installations.delete(appId: app.appId, objectId: objectId, metadata: context.metadata(for: request))
        return JSONResponse.make([:])
    }

    func list(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let app = try context.requireMaster()
        let (results, total) = try await queries.list(
            appId: app.appId, try Self.listRequest(request), rights: QueryRights(isMaster: context.isMaster))
        var out: [String: JSON] = ["results": .array(results)]
        if let total { out["count"] = .int(Int64(total)) }
        return JSONResponse.make(.object(out))
    }

    /// A list query's `where`, `order`, `limit`, `skip`, `keys` and `count`, checked (installations and other
    /// classes take the same ones).
    static func listRequest(_ request: Request) throws -> InstallationListRequest {
        try listRequest { request.query($0) }
    }

    /// A list query from its parameters by name (a request's query string, or a batch slot's).
    static func listRequest(_ parameter: (String) -> String?) throws -> InstallationListRequest {
        var query = InstallationListRequest()
        if let text = parameter("where"), !text.isEmpty {
            do {
                query.whereJSON = try JSON.parse(text)
            } catch {
                throw LeanError.invalidQuery("where is not valid JSON: \(error.description)")
            }
            guard query.whereJSON.objectValue != nil else {
                throw LeanError.invalidQuery("where must be a JSON object.")
            }
        }
        query.order = parameter("order")
        if let limit = parameter("limit") {
            guard let n = Int(limit), (0...1000).contains(n) else {
                throw LeanError.invalidParameter("limit must be an integer from 0 to 1000.")
            }
            query.limit = n
        }
        if let skip = parameter("skip") {
            guard let n = Int(skip), n >= 0 else {
                throw LeanError.invalidParameter("skip must be a non-negative integer.")
            }
            query.skip = n
        }
        query.keys = try keys(parameter("keys"))
        if let count = parameter("count") { query.count = count == "1" || count == "true" }
        return query
    }

    static func keys(_ request: Request) throws -> Set<String>? { try keys(request.query("keys")) }

    static func keys(_ text: String?) throws -> Set<String>? {
        guard let text, !text.isEmpty else { return nil }
        let names = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        for name in names where !InstallationFields.isValidFieldName(name) {
            throw LeanError.invalidKeyName("Invalid key name in keys: \(name).")
        }
        return Set(names)
    }
}
