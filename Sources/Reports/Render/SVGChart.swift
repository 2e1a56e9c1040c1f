import Foundation

/// A chart drawn on the server as inline svg (no scripts, no fonts to fetch): bars for one series, or one
/// line per series. Each point carries its figure as a tooltip, and as text where it fits, so the numbers
/// survive printing and copying.
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
        let slot = plotW / Double(Swift.max(categories.count, 1))
        let baseline = top + plotH, plotRight = Self.width - Self.right
        func x(_ i: Int) -> Double { Self.left + slot * (Double(i) + 0.5) }
        func y(_ v: Double) -> Double { top + plotH * (1 - v / (gridStep * 4)) }
        var svg = SVGWriter()
        let (w, h) = (SVGValue.number(Self.width).text, SVGValue.number(Self.height).text)
        svg.raw(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(w) \(h)\" width=\"\(w)\" height=\"\(h)\" "
                + "role=\"img\" aria-label=\"\(HTMLText.escape(title))\">")
        for step in 0...4 {
            let v = gridStep * Double(step)
            svg.element(
                "line",
                [
                    "class": "grid", "x1": .number(Self.left), "y1": .number(y(v)), "x2": .number(plotRight),
                    "y2": .number(y(v)),
                ])
            svg.text(axisLabel(v), x: Self.left - 6, y: y(v) + 4, anchor: "end")
        }
        svg.element(
            "line",
            [
                "class": "axis", "x1": .number(Self.left), "y1": .number(baseline), "x2": .number(plotRight),
                "y2": .number(baseline),
            ])
        let every = Swift.max(1, (categories.count + Self.maxCategoryLabels - 1) / Self.maxCategoryLabels)
        for (i, category) in categories.enumerated() where i % every == 0 {
            svg.text(category, x: x(i), y: baseline + 16, anchor: "middle")
        }
        let widest = Double(series.flatMap(\.labels).map(\.count).max() ?? 0)
        // With several lines only the first (the total) carries figures; the others have tooltips.
        let fits = widest * Self.figureCharWidth <= slot
        func labelled(_ s: Int) -> Bool { fits && (kind == .bars || s == 0) }
        for (s, one) in series.enumerated() {
            if kind == .lines {
                let points = one.values.indices.map { i in
                    SVGValue.number(x(i)).text + "," + SVGValue.number(y(one.values[i])).text
                }
                svg.element(
                    "polyline",
                    [
                        "class": .word("line series-\(s % 3)"), "points": .word(points.joined(separator: " ")),
                    ])
            }
            for (i, v) in one.values.enumerated() {
                let tooltip = (series.count > 1 ? one.name + " " : "") + categories[i] + ": " + one.labels[i]
                switch kind {
                case .bars:
                    let width = slot * 0.7
                    svg.element(
                        "rect",
                        [
                            "class": .word(s > 0 ? "bar alt" : "bar"), "x": .number(x(i) - width / 2),
                            "y": .number(y(v)),
                            "width": .number(width), "height": .number(baseline - y(v)),
                        ], title: tooltip)
                case .lines:
                    svg.element(
                        "circle",
                        [
                            "class": .word("dot-\(s % 3)"), "cx": .number(x(i)), "cy": .number(y(v)), "r": 3,
                        ], title: tooltip)
                }
                if labelled(s) {
                    let above = kind == .bars ? 4.0 : 7.0
                    svg.text(one.labels[i], x: x(i), y: y(v) - above, anchor: "middle", cssClass: "figure")
                }
            }
        }
        if series.count > 1 {
            for (s, one) in series.enumerated() {
                let lx = Self.left + 8 + Double(s) * 120
                svg.element(
                    "rect",
                    [
                        "class": .word("dot-\(s % 3)"), "x": .number(lx), "y": 6, "width": 10, "height": 10,
                    ])
                svg.text(one.name, x: lx + 14, y: 15)
            }
        }
        svg.raw("</svg>")
        return svg.lines.joined(separator: "\n")
    }

    /// The smallest round multiple (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8) of a power of ten that is at least
    /// `raw`, so grid lines fall on round figures.
    static func niceStep(above raw: Double) -> Double {
        guard raw > 0 else { return 1 }
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        for factor in [1.0, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10] where factor * magnitude >= raw {
            return factor * magnitude
        }
        return 10 * magnitude
    }

    private func axisLabel(_ v: Double) -> String {
        v >= 10 || v == v.rounded() ? JSONNumber.text(v.rounded()) : JSONNumber.text((v * 100).rounded() / 100)
    }
}

/// Numbers as JSON prints them (`12`, `12.5`).
enum JSONNumber {
    static func text(_ v: Double) -> String { ReportValue.number(v).text }
}
