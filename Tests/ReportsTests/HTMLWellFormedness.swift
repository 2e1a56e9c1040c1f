import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The html reports are written as well-formed XML (void elements closed, everything escaped), so an XML
/// parser proves no tag is left open and no data text broke out of its element.
enum HTMLWellFormedness {
    static func check(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let body = html.replacingOccurrences(of: "<!DOCTYPE html>", with: "")
        let parser = XMLParser(data: Data(body.utf8))
        let ok = parser.parse()
        #expect(ok, "not well-formed: \(String(describing: parser.parserError))", sourceLocation: sourceLocation)
    }
}
