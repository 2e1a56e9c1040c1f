import Foundation

/// A chart drawn on the server as inline svg (no scripts, no fonts to fetch): bars for one series, or one
/// line per series. Every point carries its figure as text, so the numbers survive printing and copying.
public struct SVGChart: Sendable {
    public enum Kind: Sendable { case bars, lines }

    public struct Series: Sendable {
        public let name: String
        public let values: [Double]
        /// The printed figure of each value (`1200`, `66.67%`).
        public let labels: [String]

        public init(name: String, values: [Double], labels: [String]) {
            precondition(values.count == labels.count)
            self.name = name
            self.values = values
            self.labels = labels
        }
    }

    public let title: String
    public let kind: Kind
    public let categories: [String]
    public let series: [Series]

    public init(title: String, kind: Kind, categories: [String], series: [Series]) {
        precondition(series.allSatisfy { $0.values.count == categories.count })
        self.title = title
        self.kind = kind
        self.categories = categories
        self.series = series
    }

    static let width = 760.0, height = 280.0
    static let left = 64.0, right = 16.0, top = 24.0, bottom = 48.0
    /// Beyond this many points the per-point figures would overlap; they move into tooltips only.
    static let maxLabelledPoints = 31

    public func svgFigure() -> String {
        "<figure>\n<figcaption>\(HTMLText.escape(title))</figcaption>\n\(svg())\n</figure>"
    }

    func svg() -> String {
        let plotW = Self.width - Self.left - Self.right, plotH = Self.height - Self.top - Self.bottom
        let maxValue = Swift.max(series.flatMap(\.values).max() ?? 0, 1)
        let slot = plotW / Double(Swift.max(categories.count, 1))
        func x(_ i: Int) -> Double { Self.left + slot * (Double(i) + 0.5) }
        func y(_ v: Double) -> Double { Self.top + plotH * (1 - v / maxValue) }
        var parts = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(n(Self.width)) \(n(Self.height))\" "
                + "width=\"\(n(Self.width))\" height=\"\(n(Self.height))\" role=\"img\" "
                + "aria-label=\"\(HTMLText.escape(title))\">",
        ]
        for step in 0...4 {
            let v = maxValue * Double(step) / 4, gy = y(v)
            parts.append("<line class=\"grid\" x1=\"\(n(Self.left))\" y1=\"\(n(gy))\" x2=\"\(n(Self.width - Self.right))\" y2=\"\(n(gy))\"/>")
            parts.append("<text x=\"\(n(Self.left - 6))\" y=\"\(n(gy + 4))\" text-anchor=\"end\">\(axisLabel(v))</text>")
        }
        let baseline = Self.top + plotH
        parts.append("<line class=\"axis\" x1=\"\(n(Self.left))\" y1=\"\(n(baseline))\" x2=\"\(n(Self.width - Self.right))\" y2=\"\(n(baseline))\"/>")
        let every = Swift.max(1, Int((Double(categories.count) / 12).rounded(.up)))
        for (i, category) in categories.enumerated() where i % every == 0 {
            parts.append("<text x=\"\(n(x(i)))\" y=\"\(n(baseline + 16))\" text-anchor=\"middle\">\(HTMLText.escape(category))</text>")
        }
        let labelled = categories.count <= Self.maxLabelledPoints
        switch kind {
        case .bars:
            let barW = slot * 0.7
            for (s, one) in series.enumerated() {
                for (i, v) in one.values.enumerated() {
                    let top = y(v), label = HTMLText.escape(one.labels[i])
                    parts.append(
                        "<rect class=\"bar\(s > 0 ? " alt" : "")\" x=\"\(n(x(i) - barW / 2))\" y=\"\(n(top))\" "
                            + "width=\"\(n(barW))\" height=\"\(n(baseline - top))\"><title>\(HTMLText.escape(categories[i])): \(label)</title></rect>")
                    if labelled {
                        parts.append("<text class=\"figure\" x=\"\(n(x(i)))\" y=\"\(n(top - 4))\" text-anchor=\"middle\">\(label)</text>")
                    }
                }
            }
        case .lines:
            for (s, one) in series.enumerated() {
                let points = one.values.enumerated().map { "\(n(x($0.offset))),\(n(y($0.element)))" }.joined(separator: " ")
                parts.append("<polyline class=\"line series-\(s % 3)\" points=\"\(points)\"/>")
                for (i, v) in one.values.enumerated() {
                    let label = HTMLText.escape(one.labels[i])
                    parts.append(
                        "<circle class=\"dot-\(s % 3)\" cx=\"\(n(x(i)))\" cy=\"\(n(y(v)))\" r=\"3\"><title>"
                            + "\(HTMLText.escape(one.name)) \(HTMLText.escape(categories[i])): \(label)</title></circle>")
                    if labelled {
                        parts.append("<text class=\"figure\" x=\"\(n(x(i)))\" y=\"\(n(y(v) - 7))\" text-anchor=\"middle\">\(label)</text>")
                    }
                }
            }
            if series.count > 1 {
                for (s, one) in series.enumerated() {
                    let lx = Self.left + 8 + Double(s) * 120
                    parts.append("<rect class=\"dot-\(s % 3)\" x=\"\(n(lx))\" y=\"6\" width=\"10\" height=\"10\"/>")
                    parts.append("<text x=\"\(n(lx + 14))\" y=\"15\">\(HTMLText.escape(one.name))</text>")
                }
            }
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// Coordinates with at most one decimal keep the svg small.
    private func n(_ v: Double) -> String { JSONNumber.text((v * 10).rounded() / 10) }

    private func axisLabel(_ v: Double) -> String {
        v >= 10 || v == v.rounded() ? JSONNumber.text(v.rounded()) : JSONNumber.text((v * 100).rounded() / 100)
    }
}

/// Numbers as JSON prints them (`12`, `12.5`).
enum JSONNumber {
    static func text(_ v: Double) -> String { ReportValue.number(v).text }
}
