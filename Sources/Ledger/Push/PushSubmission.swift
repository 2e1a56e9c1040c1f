import Foundation
import PushCore

/// The command that accepts a push: it reads a `/push` or `/push/devices` body, checks its query against the
/// app's classes and records it. The REST routes and the console's send form both call it, so a push is accepted
/// or refused the same way whichever way it arrives.
public struct PushSubmission: Sendable {
    let pushes: PushCommands
    let objects: ObjectQueries

    public init(pushes: PushCommands, objects: ObjectQueries) {
        self.pushes = pushes
        self.objects = objects
    }

    /// Validates and records one push request.
    /// - Parameter rights: the caller's, which its `where`'s sub-queries are held to (the fan-out later targets
    ///   what was accepted here).
    public func submit(
        _ body: [String: JSON], devices: Bool, headerProd: String?, app: App, rights: QueryRights,
        metadata: EventMetadata
    ) async throws -> PushCommands.Accepted {
        // One instant judges the request's times and stamps its record.
        let now = pushes.clock.now()
        let parsed = try await validate(
            body, devices: devices, headerProd: headerProd, app: app, rights: rights, now: now)
        return try await pushes.request(parsed, app: app, metadata: metadata, now: now)
    }

    /// Parses a push body and checks its query as `submit` would, without recording anything (the console's
    /// audience preview runs on exactly what would be sent).
    public func validate(
        _ body: [String: JSON], devices: Bool, headerProd: String?, app: App, rights: QueryRights, now: Date
    ) async throws -> PushRequest {
        let parsed = try PushRequest.parse(body, devicesEndpoint: devices, headerProd: headerProd, now: now)
        if case .query(let whereJSON) = parsed.audience {
            // Refuse a bad query now rather than failing later in the fan-out.
            do {
                _ = try WhereCompiler(
                    schema: .installations, related: RelatedClasses(appId: app.appId, rights: rights)
                ).compile(whereJSON)
            } catch {
                throw error.leanError
            }
            // A sub-query on a class that has never existed would match nothing without a word: refuse it.
            let named = WhereCompiler.referencedClasses(whereJSON)
            if let missing = named.subtracting(try await objects.existingClasses(appId: app.appId, named)).sorted()
                .first
            {
                throw LeanError(.objectNotFound, "Class \(missing) does not exist.")
            }
        }
        return parsed
    }
}
