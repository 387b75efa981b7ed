// The frame every HTML page of the suite shares: an XHTML-compatible document with its style sheet inline, no
// script and nothing loaded from the network, so a page can be mailed, archived or opened from a CI artifact.

/// A self-contained page: title, inline CSS, and a body assembled by the caller from escaped pieces.
public struct HTMLPage: Sendable {
    /// The text of `<title>` and of the top heading (unescaped).
    public var title: String
    /// A line under the heading (unescaped), e.g. the file the page was made from.
    public var subtitle: String
    /// The body's markup, already escaped.
    public var body: String
    /// Markup shown above the heading, already escaped: the bar of links a page of a site shares with the others
    /// (empty for a page on its own).
    public var navigation: String

    /// Creates a page.
    public init(title: String, subtitle: String, body: String, navigation: String = "") {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.navigation = navigation
    }

    /// The whole document. Well-formed XML (it parses as XHTML), served as HTML5.
    public func render() -> String {
        """
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>\(Markup.escape(title))</title>
        <style>
        \(HTMLPage.styleSheet)
        </style>
        </head>
        <body>
        \(navigation)<header><h1>\(Markup.escape(title))</h1><p class="subtitle">\(Markup.escape(subtitle))</p></header>
        \(body)
        </body>
        </html>

        """
    }

    /// The style sheet of every page: readable type, compact tables, status colours shared by both page kinds.
    static let styleSheet = """
        :root { --fg: #1b1f23; --muted: #57606a; --line: #d0d7de; --bg-alt: #f6f8fa;
                --met: #1a7f37; --missed: #cf222e; --none: #8c959f; --xfail: #9a6700; }
        * { box-sizing: border-box; }
        body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; color: var(--fg); margin: 24px auto;
               max-width: 1200px; padding: 0 20px; font-size: 14px; line-height: 1.45; }
        header h1 { font-size: 22px; margin: 0 0 2px 0; }
        .subtitle { color: var(--muted); margin: 0 0 18px 0; }
        h2 { font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 4px; margin-top: 30px; }
        h3 { font-size: 15px; margin: 18px 0 6px 0; }
        p.note { color: var(--muted); margin: 4px 0 10px 0; }
        table { border-collapse: collapse; margin: 6px 0 12px 0; }
        th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
        th { background: var(--bg-alt); font-weight: 600; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        td.nowrap { white-space: nowrap; }
        caption { text-align: left; padding: 2px 0; }
        table.context td:first-child { font-weight: 600; white-space: nowrap; }
        table.context td { max-width: 900px; overflow-wrap: anywhere; }
        code, pre, .mono { font-family: "DejaVu Sans Mono", Menlo, monospace; font-size: 12.5px; }
        pre { background: var(--bg-alt); border: 1px solid var(--line); padding: 8px; overflow-x: auto; margin: 6px 0; }
        .met { color: var(--met); font-weight: 600; }
        .missed { color: var(--missed); font-weight: 600; }
        .none { color: var(--none); }
        .xfail { color: var(--xfail); font-weight: 600; }
        td.pass { background: #dafbe1; }
        td.fail { background: #ffebe9; }
        td.xfail { background: #fff8c5; }
        td.skip { background: #eaeef2; }
        .charts { display: flex; flex-wrap: wrap; gap: 14px; margin-bottom: 14px; }
        .charts svg { border: 1px solid var(--line); background: white; }
        details { border: 1px solid var(--line); border-radius: 4px; padding: 4px 10px; margin: 6px 0; }
        details[open] { background: #fcfcfd; }
        summary { cursor: pointer; }
        .badge { display: inline-block; min-width: 64px; text-align: center; border-radius: 3px; padding: 0 6px;
                 font-weight: 600; font-size: 12px; color: white; }
        .badge.fail, .badge.crash, .badge.timeout, .badge.error, .badge.xpass { background: var(--missed); }
        .badge.xfail { background: var(--xfail); }
        .badge.skip { background: var(--none); }
        .diff .del { color: var(--missed); }
        .diff .add { color: var(--met); }
        footer { color: var(--muted); margin-top: 30px; font-size: 12px; }
        nav.site { display: flex; flex-wrap: wrap; gap: 4px 18px; padding: 6px 0 10px 0; margin-bottom: 14px;
                   border-bottom: 1px solid var(--line); }
        nav.site a { color: #0550ae; text-decoration: none; font-weight: 600; }
        nav.site a.here { color: var(--fg); border-bottom: 2px solid var(--fg); }
        """
}
