import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import PushCore

/// The outermost middleware: gives every request an id (the client's `X-Request-Id` when it is usable, else
/// a new one), echoes it in the response, logs the request once when it is answered, and counts it.
public struct RequestLogMiddleware: RouterMiddleware {
    public typealias Context = AppRequestContext

    public init() {}

    public func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    )
        async throws -> Response
    {
        var context = context
        let requestId = Self.requestId(from: request.headers[Self.header])
        context.requestId = requestId
        context.logger[metadataKey: "request_id"] = .string(requestId)
        let started = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            // Errors LeanErrorMiddleware does not answer (none are expected) still get an id and a log line.
            response = try LeanErrorResponse(.internalFailure)
                .response(from: request, context: context)
            context.logger.error("unanswered error: \(error)")
        }
        response.headers[Self.header] = requestId
        let elapsed = ContinuousClock.now - started
        // The route pattern, not the path: ids in paths would make every request its own series.
        let route = Self.routeLabel(context.endpointPath)
        let status = response.status.code
        let method = request.method.rawValue
        Counter(
            label: "pushledger_http_requests_total",
            dimensions: [
                ("method", method), ("route", route), ("status", String(status)),
            ]
        ).increment()
        Metrics.Timer(
            label: "pushledger_http_request_duration_seconds", dimensions: [("method", method), ("route", route)]
        )
        .recordNanoseconds(elapsed.nanoseconds)
        var metadata: Logger.Metadata = [
            "method": .string(method), "route": .string(route), "status": .stringConvertible(status),
            "duration_ms": .string(Self.milliseconds(elapsed)),
        ]
        if let appId = context.facts.appId { metadata["app_id"] = .string(appId) }
        let level: Logger.Level = status >= 500 ? .error : .info
        context.logger.log(level: level, "request", metadata: metadata)
        return response
    }

    static let header = HTTPField.Name("X-Request-Id")!

    /// The `route` label: the matched pattern, or `unmatched` for a request no route took (Hummingbird's
    /// not-found responder names itself `NotFound`, which docs/operations.md does not promise).
    static func routeLabel(_ endpointPath: String?) -> String {
        guard let endpointPath, endpointPath != "NotFound" else { return "unmatched" }
        return endpointPath
    }

    /// `elapsed` in milliseconds with one decimal, truncated, for the log line, written by hand: it runs on every
    /// request, and `String(format: "%.1f")` is a slow way to print two integers.
    static func milliseconds(_ elapsed: Duration) -> String {
        let (seconds, attoseconds) = elapsed.components
        let tenths = seconds * 10_000 + attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// The client's id when it is short, printable ASCII without spaces (it is logged and stored); otherwise
    /// a new random one.
    static func requestId(from header: String?) -> String {
        if let header, (1...128).contains(header.utf8.count),
            header.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        {
            return header
        }
        return RandomID.make(length: 16)
    }
}
