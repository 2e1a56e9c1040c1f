import Foundation
import HTTPEdge
import Hummingbird
import Ledger
import PushCore

extension ObjectRoutes {
    /// The most requests one `/1.1/batch` call may carry (Parse's own limit is 50 too).
    public static let maxBatchRequests = 50

    /// `POST /1.1/batch` `{"requests":[{"method","path","body"}…]}`: each request runs on its own, in order, as
    /// if sent alone (its own transaction and events; one failing leaves the others done), and answers
    /// `{"success":…}` or `{"error":{"code","error"}}` in its slot, as Parse does. Paths: `/1.1/classes/…` and
    /// `/1.1/users…`.
    func batch(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        _ = try context.requireApp()
        let body = try await request.jsonObject()
        guard let requests = body["requests"]?.arrayValue else {
            throw LeanError(.malformedJSON, "A batch is {\"requests\": [{\"method\", \"path\", \"body\"}, …]}.")
        }
        guard requests.count <= Self.maxBatchRequests else {
            throw LeanError.invalidParameter(
                "A batch holds at most \(Self.maxBatchRequests) requests; this one has \(requests.count).")
        }
        let metadata = context.metadata(for: request)
        var results: [JSON] = []
        for item in requests {
            do {
                let success = try await run(item, context, metadata: metadata)
                results.append(["success": success])
            } catch {
                let lean = Self.leanError(error)
                if lean.kind == .internalFailure || lean.kind == .unavailable {
                    context.logger.error("batch request failed: \(error)")
                }
                results.append(["error": lean.body])
            }
        }
        return JSONResponse.make(.array(results))
    }

    /// One request of a batch, answered as its REST call would be.
    func run(_ item: JSON, _ context: AppRequestContext, metadata: EventMetadata) async throws -> JSON {
        guard let method = item["method"]?.stringValue?.uppercased(), let path = item["path"]?.stringValue else {
            throw LeanError(.malformedJSON, "A batch request needs a method and a path.")
        }
        let body: [String: JSON]
        switch item["body"] {
        case nil, .null?: body = [:]
        case .object(let o)?: body = o
        default: throw LeanError(.malformedJSON, "A batch request's body must be a JSON object.")
        }
        let (className, objectId) = try Self.target(of: path, method: method)
        let appId = try Self.authorize(className, context)
        switch (method, objectId) {
        case ("POST", nil):
            let created = try await objects.create(appId: appId, className: className, body: body, metadata: metadata)
            return ["objectId": .string(created.objectId), "createdAt": .string(created.createdAt)]
        case ("PUT", let objectId?):
            let updatedAt = try await objects.update(
                appId: appId, className: className, objectId: objectId, body: body, metadata: metadata)
            return ["updatedAt": .string(updatedAt)]
        case ("DELETE", let objectId?):
            try await objects.delete(appId: appId, className: className, objectId: objectId, metadata: metadata)
            return [:]
        case ("GET", let objectId?):
            guard let found = try await queries.get(appId: appId, className: className, objectId: objectId) else {
                throw LeanError.notFound()
            }
            return found.rendered()
        case ("GET", nil):
            // A listing, as Parse's batch allows: its parameters in the path's query or the body (where as an
            // object or its JSON text), held to the caller's rights like the listing route.
            let query = try InstallationRoutes.listRequest { Self.parameter($0, path: path, body: body) }
            let (results, total) = try await queries.list(
                appId: appId, className: className, query, rights: QueryRights(isMaster: context.isMaster))
            var out: [String: JSON] = ["results": .array(results)]
            if let total { out["count"] = .int(Int64(total)) }
            return .object(out)
        default:
            throw LeanError.invalidParameter("Unsupported batch request: \(method) \(path).")
        }
    }

    /// The class and object id a batch path names: `/1.1/classes/<class>[/<id>]` or `/1.1/users[/<id>]`.
    static func target(of path: String, method: String) throws -> (className: String, objectId: String?) {
        let unsupported = LeanError.invalidParameter(
            "Unsupported batch request: \(method) \(path). A batch takes /1.1/classes/… and /1.1/users… paths.")
        let bare = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard bare.hasPrefix("/1.1/") else { throw unsupported }
        let parts = bare.dropFirst(5).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("classes"?, 2), ("classes"?, 3):
            if parts[1] == ClassName.installation {
                throw LeanError.invalidParameter("A batch does not take _Installation; use /1.1/installations.")
            }
            return (parts[1], try objectId(parts.dropFirst(2).first, unsupported))
        case ("users"?, 1), ("users"?, 2):
            return (ClassName.user, try objectId(parts.dropFirst(1).first, unsupported))
        default:
            throw unsupported
        }
    }

    /// A listing parameter of a batch slot: the body's (a JSON value is sent as its text, as a query string
    /// carries it), else the path's query string.
    static func parameter(_ name: String, path: String, body: [String: JSON]) -> String? {
        if let value = body[name] { return value.stringValue ?? value.encoded() }
        guard let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        return URLComponents(string: "?" + query)?.queryItems?.first { $0.name == name }?.value
    }

    /// The path's object id, if it names one; an empty one (`/1.1/users/`) is no path of ours.
    private static func objectId(_ id: String?, _ error: LeanError) throws -> String? {
        guard let id else { return nil }
        guard !id.isEmpty else { throw error }
        return id
    }

    /// What a batch slot says for an error its request threw, as `LeanErrorMiddleware` would have answered it.
    static func leanError(_ error: any Error) -> LeanError {
        switch error {
        case let error as LeanErrorResponse: return error.error
        case let error as LeanError: return error
        case is VersionConflict: return .changedConcurrently("object")
        default: return .internalFailure
        }
    }
}
