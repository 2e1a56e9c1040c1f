import Foundation
import HTTPTypes
import Hummingbird
import Ledger
import NIOCore
import Postgres
import PushCore

/// The one place where errors become LeanCloud's `{"code": N, "error": "..."}` responses.
public struct LeanErrorResponse: HTTPResponseError {
    public let error: LeanError
    public var headers: HTTPFields = [:]
    public let status: HTTPResponse.Status

    /// The error answered with its kind's status, or with `status` for answers only HTTP has (a method the
    /// route does not take, an upgrade required).
    public init(_ error: LeanError, status: HTTPResponse.Status? = nil) {
        self.error = error
        self.status = status ?? .init(code: error.kind.httpStatus)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        if let seconds = error.retryAfterSeconds { fields[.retryAfter] = String(seconds) }
        return Response(
            status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: error.body.encoded())))
    }
}

/// Maps every error thrown by a route to a LeanCloud-style response; unexpected errors are logged and
/// answered as 500 without leaking internals.
public struct LeanErrorMiddleware: RouterMiddleware {
    public typealias Context = AppRequestContext

    public init() {}

    public func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    )
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            return try Self.translate(error, request: request, context: context).response(
                from: request, context: context)
        }
    }

    /// The LeanCloud error that an error thrown by a route stands for (the console shows the same code and
    /// message on its pages). Unexpected errors are logged and become a 500 that leaks no internals.
    public static func translate(_ error: any Error, request: Request, context: AppRequestContext) -> LeanErrorResponse
    {
        switch error {
        case let error as LeanErrorResponse:
            return error
        case let error as LeanError:
            return LeanErrorResponse(error)
        case is VersionConflict:
            // Another writer changed the object between this request's read and its write.
            return LeanErrorResponse(.changedConcurrently("object"))
        case let error as PGError where error.isConnectionLoss:
            // The database is down or restarting: a prompt, retryable answer instead of a hang or a 500.
            context.logger.warning("database unavailable: \(error)")
            return LeanErrorResponse(.databaseUnavailable)
        case let error as PGError where error.sqlState == PGError.invalidRegularExpression:
            return LeanErrorResponse(.invalidQuery("Invalid $regex: \(error.message)."))
        case let error as PGError where error.isDataException:
            // Input PostgreSQL cannot take (a value out of its range…) that validation let through: still the
            // request's fault, so a 400 that names it, never a 500.
            context.logger.notice("request refused by the database: \(error)")
            return LeanErrorResponse(.invalidParameter("Invalid value: \(error.message)."))
        case let error as HTTPError:
            switch error.status {
            case .notFound:
                return LeanErrorResponse(
                    LeanError(.routeNotFound, "Not found: \(request.method) \(request.uri.path)", kind: .notFound))
            case .contentTooLarge: return LeanErrorResponse(.tooLarge(APILimits.maxBodyBytes))
            case .methodNotAllowed:
                return LeanErrorResponse(.invalidParameter("Method not allowed."), status: .methodNotAllowed)
            default: return LeanErrorResponse(.invalidParameter(error.body ?? "Bad request."), status: error.status)
            }
        default:
            context.logger.error("request failed: \(error)")
            return LeanErrorResponse(.internalFailure)
        }
    }
}
