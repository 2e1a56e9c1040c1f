import HTTPEdge
import Hummingbird

/// Errors under `/console` become an HTML page with LeanCloud's code and message (the same translation the
/// REST API answers with), never JSON and never a bare 500.
struct ConsoleErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let pages: ConsolePages

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let lean = LeanErrorMiddleware.translate(error, request: request, context: context)
            return pages.page(
                "error", title: "Error \(lean.error.code)",
                ["code": lean.error.code.rawValue, "message": lean.error.message, "appId": context.app?.appId ?? ""],
                chrome: nil, status: lean.status)
        }
    }
}
