// The JSON text of every `--format json` ConformanceKit renders (conform's report, fuzz's summary, the rules
// listing): pretty-printed with sorted keys, so that runs diff line by line, and with slashes as they are (paths).

import Foundation

package enum JSONText {
    /// `value` as JSON text. The reports encode only strings, numbers, booleans and arrays and dictionaries of them,
    /// which cannot fail; "{}" stands for a failure all the same rather than a crash.
    package static func render<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
