// Why a site could not be built: an input that cannot be read (naming its file, and its line or field) or an output
// that cannot be written. `runloop site` prints the message and exits 2.

/// A site that could not be built.
public struct SiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The message, naming the file and the line or field.
    public let description: String

    public init(_ description: String) { self.description = description }
}
