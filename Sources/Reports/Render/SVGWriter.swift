/// Collects svg elements as text; attribute values and titles are escaped here, numbers are shortened to
/// one decimal so large charts stay small.
struct SVGWriter {
    private(set) var lines: [String] = []

    /// `<name a="v" …/>`, or with a tooltip `<name …><title>…</title></name>`.
    mutating func element(_ name: String, _ attributes: KeyValuePairs<String, SVGValue>, title: String? = nil) {
        let attrs = attributes.map { " \($0.key)=\"\($0.value.text)\"" }.joined()
        if let title {
            lines.append("<\(name)\(attrs)><title>\(HTMLText.escape(title))</title></\(name)>")
        } else {
            lines.append("<\(name)\(attrs)/>")
        }
    }

    mutating func text(_ content: String, x: Double, y: Double, anchor: String = "start", cssClass: String? = nil) {
        let classAttribute = cssClass.map { " class=\"\($0)\"" } ?? ""
        lines.append(
            "<text\(classAttribute) x=\"\(SVGValue.number(x).text)\" y=\"\(SVGValue.number(y).text)\" "
                + "text-anchor=\"\(anchor)\">\(HTMLText.escape(content))</text>")
    }

    mutating func raw(_ line: String) { lines.append(line) }
}

/// An attribute value: a coordinate or a word.
enum SVGValue: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    case number(Double)
    case word(String)

    init(floatLiteral value: Double) { self = .number(value) }
    init(integerLiteral value: Int) { self = .number(Double(value)) }
    init(stringLiteral value: String) { self = .word(value) }

    var text: String {
        switch self {
        case .number(let v): JSONNumber.text((v * 10).rounded() / 10)
        case .word(let w): HTMLText.escape(w)
        }
    }
}
