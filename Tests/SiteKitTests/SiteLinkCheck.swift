// The link check of a written site: every page parses as XML, has no script and loads nothing from the network,
// every relative href names a written file, and every #anchor an id of its target page.
import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// What a page holds that the check needs.
final class PageScan: NSObject, XMLParserDelegate {
    var ids: [String] = []
    /// (element, attribute, value) of every href and src.
    var references: [(element: String, attribute: String, value: String)] = []
    var elements: Set<String> = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        elements.insert(elementName.lowercased())
        if let id = attributeDict["id"] { ids.append(id) }
        for attribute in ["href", "src", "xlink:href"] {
            if let value = attributeDict[attribute] { references.append((elementName, attribute, value)) }
        }
    }
}

enum SiteLinkCheck {
    /// The problems of the site in `directory`: empty when every check passes.
    static func problems(in directory: String) throws -> [String] {
        let pages = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".html") }
        var scans: [String: PageScan] = [:]
        var problems: [String] = []
        for page in pages {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + page))
            let parser = XMLParser(data: data)
            let scan = PageScan()
            parser.delegate = scan
            if !parser.parse() {
                problems.append(
                    "\(page): not well-formed XML at line \(parser.lineNumber): "
                        + "\(parser.parserError.map { "\($0)" } ?? "?")")
                continue
            }
            scans[page] = scan
            if scan.elements.contains("script") { problems.append("\(page): has a <script>") }
            let duplicates = Dictionary(grouping: scan.ids, by: { $0 }).filter { $0.value.count > 1 }.keys
            if !duplicates.isEmpty { problems.append("\(page): duplicate ids \(duplicates.sorted())") }
        }
        for (page, scan) in scans.sorted(by: { $0.key < $1.key }) {
            for reference in scan.references {
                let value = reference.value
                if value.contains("://") || value.hasPrefix("//") || value.hasPrefix("/") {
                    problems.append("\(page): \(reference.element) \(reference.attribute)=\"\(value)\" is not relative")
                    continue
                }
                let parts = value.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let file = parts[0].isEmpty ? page : String(parts[0])
                guard let target = scans[file] else {
                    problems.append("\(page): \(reference.attribute)=\"\(value)\": no page \(file) was written")
                    continue
                }
                if parts.count == 2, !target.ids.contains(String(parts[1])) {
                    problems.append("\(page): \(reference.attribute)=\"\(value)\": \(file) has no id \(parts[1])")
                }
            }
        }
        return problems
    }

    /// The number of links of the site that the check followed (to know it checked something).
    static func linkCount(in directory: String) throws -> Int {
        var count = 0
        for page in try FileManager.default.contentsOfDirectory(atPath: directory) where page.hasSuffix(".html") {
            let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: directory + "/" + page)))
            let scan = PageScan()
            parser.delegate = scan
            _ = parser.parse()
            count += scan.references.count
        }
        return count
    }
}
