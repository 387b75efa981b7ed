// A subcommand refuses its parent's options by name instead of ignoring them.

import ArgumentParser

/// ArgumentParser parses a parent command's options written around one of its subcommands and then drops them (the
/// parent's run() is not called), so `runloop conform merge --engine ref a.json b.json` would merge as if `--engine`
/// were not there. A subcommand that takes none of its parent's options calls this from its validate(): everything
/// after the subcommand's name must parse as the subcommand's own arguments, and nothing may stand between the
/// parent's name and the subcommand's.
enum SubcommandArguments {
    /// Set while the subcommand's own arguments are parsed again, whose validate() comes back here.
    @TaskLocal private static var reparsing = false

    static func refuseParentOptions<Command: ParsableCommand>(
        of command: Command.Type, parent: String, arguments: [String] = CommandLine.arguments
    ) throws {
        guard !reparsing else { return }
        let name = command.configuration.commandName ?? ""
        let words = arguments.dropFirst()
        guard let parentAt = words.firstIndex(of: parent),
            let nameAt = words[(parentAt + 1)...].firstIndex(of: name)
        else { return }
        let between = words[(parentAt + 1)..<nameAt]
        if !between.isEmpty {
            throw ValidationError(
                "\(between.joined(separator: " ")): options of `runloop \(parent)` do not apply to "
                    + "`runloop \(parent) \(name)` (see runloop \(parent) \(name) --help)")
        }
        do {
            _ = try $reparsing.withValue(true) { try Command.parseAsRoot(Array(words[(nameAt + 1)...])) }
        } catch {
            throw ValidationError(
                Command.message(for: error) + " (options of `runloop \(parent)` do not apply to `runloop \(parent) "
                    + "\(name)`)")
        }
    }
}
