import Foundation

// The SVG elements every chart of the suite is drawn with: the document's opening, lines and text, with coordinates
// written to two decimals so that a page is the same text on every machine.

/// SVG element writers. Content passed to `text` must already be escaped (`Markup.escape`).
public enum SVG {
    /// The opening `<svg>` tag of a `width` x `height` chart with a white background; close it with `</svg>`.
    public static func open(width: Double, height: Double) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" "
            + "viewBox=\"0 0 \(f(width)) \(f(height))\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
            + "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    }

    /// Two decimals, enough for pixel coordinates.
    public static func f(_ value: Double) -> String { String(format: "%.2f", value) }

    /// A `<line>` element.
    public static func line(
        _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1,
        dash: String? = nil
    ) -> String {
        "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(stroke)\" "
            + "stroke-width=\"\(f(width))\"" + (dash.map { " stroke-dasharray=\"\($0)\"" } ?? "") + "/>\n"
    }

    /// A `<text>` element; `content` must already be escaped.
    public static func text(
        x: Double, y: Double, _ content: String, size: Double, anchor: String = "start",
        weight: String = "normal", fill: String = "#111", family: String? = nil
    ) -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" font-size=\"\(f(size))\" text-anchor=\"\(anchor)\" "
            + "font-weight=\"\(weight)\" fill=\"\(fill)\"" + (family.map { " font-family=\"\($0)\"" } ?? "")
            + ">\(content)</text>\n"
    }
}
