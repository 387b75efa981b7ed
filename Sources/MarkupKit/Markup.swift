// Escaping text for XML and XHTML: the one helper behind the JUnit report, the SVG charts and the HTML pages.

/// XML escaping for element content and attribute values.
public enum Markup {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by entities, and the control characters XML 1.0 forbids
    /// (everything below U+0020 except tab, newline and carriage return) replaced by U+FFFD, so that any string (a
    /// trace, an error message from a crashed engine) yields a well-formed document, in content and in attributes.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    result += "\u{FFFD}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
