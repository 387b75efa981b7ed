// The GNU build id of an ELF file (the NT_GNU_BUILD_ID note the linker writes with --build-id): what a conformance run
// records of the `runloop` executable that hosts the built-in engines, so that two runs tell their builds apart.
// Reads the ELF header, the program headers and the PT_NOTE segments only, not the whole file.

import Foundation

enum ELFBuildID {
    /// The build id of the ELF file at `path` as lowercase hex; nil when it is no 64-bit little-endian ELF file or
    /// has no build id note.
    static func read(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
            guard (try? handle.seek(toOffset: offset)) != nil,
                let data = try? handle.read(upToCount: count), data.count == count
            else { return nil }
            return [UInt8](data)
        }
        func integer(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
            (0..<size).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
        }
        // e_ident: "\x7fELF", class 2 (64-bit), data 1 (little-endian).
        guard let header = bytes(at: 0, count: 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46], header[4] == 2,
            header[5] == 1
        else { return nil }
        let tableOffset = integer(header, 0x20, 8)
        let entrySize = Int(integer(header, 0x36, 2))
        let entries = Int(integer(header, 0x38, 2))
        guard entrySize >= 56, entries <= 256 else { return nil }
        for index in 0..<entries {
            guard let entry = bytes(at: tableOffset + UInt64(index * entrySize), count: 56) else { return nil }
            guard integer(entry, 0, 4) == 4 else { continue }  // PT_NOTE
            let size = Int(min(integer(entry, 0x20, 8), 1 << 16))
            guard let notes = bytes(at: integer(entry, 0x08, 8), count: size) else { continue }
            var at = 0
            while at + 12 <= notes.count {
                let nameSize = Int(integer(notes, at, 4))
                let descSize = Int(integer(notes, at + 4, 4))
                let type = integer(notes, at + 8, 4)
                let name = at + 12
                let desc = name + (nameSize + 3) / 4 * 4
                guard desc + descSize <= notes.count else { break }
                // NT_GNU_BUILD_ID (3), owner "GNU\0".
                if type == 3, nameSize == 4, notes[name..<name + 3] == [0x47, 0x4E, 0x55] {
                    return notes[desc..<desc + descSize].map { String(format: "%02x", $0) }.joined()
                }
                at = desc + (descSize + 3) / 4 * 4
            }
        }
        return nil
    }
}
