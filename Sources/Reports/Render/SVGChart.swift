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
    static let left = 64.0, right = 16.0, bottom = 48.0
    /// Day labels under the axis; more would run into each other.
    static let maxCategoryLabels = 8
    /// Roughly the width of one character of an 11px figure: figures that do not fit their slot are left
    /// to the tooltips (and the table), rather than drawn over each other.
    static let figureCharWidth = 6.5

    /// Room at the top for the legend when there are several series.
    var top: Double { series.count > 1 ? 40 : 24 }

    public func svgFigure() -> String {
        "<figure>\n<figcaption>\(HTMLText.escape(title))</figcaption>\n\(svg())\n</figure>"
    }

    func svg() -> String {
        let plotW = Self.width - Self.left - Self.right, plotH = Self.height - top - Self.bottom
        let gridStep = Self.niceStep(above: (series.flatMap(\.values).max() ?? 0) / 4)
        let maxValue = gridStep * 4
        let slot = plotW / Double(Swift.max(categories.count, 1))
        func x(_ i: Int) -> Double { Self.left + slot * (Double(i) + 0.5) }
        func y(_ v: Double) -> Double { top + plotH * (1 - v / maxValue) }
        var parts = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(n(Self.width)) \(n(Self.height))\" "
                + "width=\"\(n(Self.width))\" height=\"\(n(Self.height))\" role=\"img\" "
                + "aria-label=\"\(HTMLText.escape(title))\">",
        ]
        for step in 0...4 {
            let v = gridStep * Double(step), gy = y(v)
            parts.append("<line class=\"grid\" x1=\"\(n(Self.left))\" y1=\"\(n(gy))\" x2=\"\(n(Self.width - Self.right))\" y2=\"\(n(gy))\"/>")
            parts.append("<text x=\"\(n(Self.left - 6))\" y=\"\(n(gy + 4))\" text-anchor=\"end\">\(axisLabel(v))</text>")
        }
        let baseline = top + plotH
        parts.append("<line class=\"axis\" x1=\"\(n(Self.left))\" y1=\"\(n(baseline))\" x2=\"\(n(Self.width - Self.right))\" y2=\"\(n(baseline))\"/>")
        let every = Swift.max(1, Int((Double(categories.count) / Double(Self.maxCategoryLabels)).rounded(.up)))
        for (i, category) in categories.enumerated() where i % every == 0 {
            parts.append("<text x=\"\(n(x(i)))\" y=\"\(n(baseline + 16))\" text-anchor=\"middle\">\(HTMLText.escape(category))</text>")
        }
        let widest = Double(series.flatMap(\.labels).map(\.count).max() ?? 0)
        // With several lines only the first (the total) carries figures; the others have tooltips.
        let fits = widest * Self.figureCharWidth <= slot
        func labelled(_ s: Int) -> Bool { fits && (kind == .bars || s == 0) }
        switch kind {
        case .bars:
            let barW = slot * 0.7
            for (s, one) in series.enumerated() {
                for (i, v) in one.values.enumerated() {
                    let barTop = y(v), label = HTMLText.escape(one.labels[i])
                    parts.append(
                        "<rect class=\"bar\(s > 0 ? " alt" : "")\" x=\"\(n(x(i) - barW / 2))\" y=\"\(n(barTop))\" "
                            + "width=\"\(n(barW))\" height=\"\(n(baseline - barTop))\"><title>\(HTMLText.escape(categories[i])): \(label)</title></rect>")
                    if labelled(s) {
                        parts.append("<text class=\"figure\" x=\"\(n(x(i)))\" y=\"\(n(barTop - 4))\" text-anchor=\"middle\">\(label)</text>")
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
                    if labelled(s) {
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

    /// The smallest round multiple (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8) of a power of ten that is at least `raw`, so grid lines fall on
    /// round figures.
    static func niceStep(above raw: Double) -> Double {
        guard raw > 0 else { return 1 }
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        for factor in [1.0, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10] where factor * magnitude >= raw { return factor * magnitude }
        return 10 * magnitude
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
