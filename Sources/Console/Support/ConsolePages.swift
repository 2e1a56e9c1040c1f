import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// The console's templates (bundled `Templates/*.mustache`) and static files, loaded once at start. Every page
/// shares `header` and `footer`; values are escaped by Mustache unless a template asks otherwise.
struct ConsolePages: Sendable {
    let library: MustacheLibrary
    let styles: String
    let script: String

    static func load() async throws -> ConsolePages {
        guard let templates = Bundle.module.url(forResource: "Templates", withExtension: nil),
            let css = Bundle.module.url(forResource: "console", withExtension: "css", subdirectory: "Static"),
            let js = Bundle.module.url(forResource: "console", withExtension: "js", subdirectory: "Static")
        else { throw ConsoleSetupError("the console's bundled templates or static files are missing") }
        return ConsolePages(
            library: try await MustacheLibrary(directory: templates.path),
            styles: try String(contentsOf: css, encoding: .utf8), script: try String(contentsOf: js, encoding: .utf8))
    }

    /// A whole page: `values` plus the chrome (signed-in app, CSRF token for the logout form, active section).
    func page(
        _ template: String, title: String, _ values: [String: Any] = [:], chrome: PageChrome?,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var all = values
        all["pageTitle"] = title
        if let chrome {
            all["session"] = ["appId": chrome.appId, "csrf": chrome.csrf]
            all["nav_" + chrome.section] = true
        }
        guard let html = library.render(all, withTemplate: template) else {
            return Self.response(
                "<!DOCTYPE html><title>Console</title><p>Missing template \(template).</p>", .internalServerError)
        }
        return Self.response(html, status)
    }

    static func response(_ html: String, _ status: HTTPResponse.Status) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = "text/html; charset=utf-8"
        // Pages show an app's data to whoever holds its session: never cache them, never frame them.
        fields[.cacheControl] = "no-store"
        fields[HTTPField.Name("X-Frame-Options")!] = "DENY"
        fields[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; "
            + "form-action 'self'"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    func asset(_ text: String, contentType: String) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        fields[.cacheControl] = "max-age=300"
        return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// What every signed-in page shows around its content.
struct PageChrome: Sendable {
    let appId: String
    let csrf: String
    /// `pushes`, `send`, `installations`, `reports` or `audit`: the highlighted navigation entry.
    let section: String
}

struct ConsoleSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
