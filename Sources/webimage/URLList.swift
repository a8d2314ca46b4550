import Foundation

/// The URLs `webimage prefetch` reads: one a line; blank lines and `#` comments skipped; surrounding
/// whitespace trimmed; anything that is not an absolute URL taken as a file path.
enum URLList {
    /// Reads `path` (`-` = standard input).
    static func read(from path: String) throws(CLIError) -> [URL] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw CLIError("cannot read the URL list \(path): \(error.localizedDescription)")
            }
        }
        return parse(String(decoding: data, as: UTF8.self))
    }

    static func parse(_ text: String) -> [URL] {
        lines(of: text).compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
            return CLIPipeline.url(from: trimmed)
        }
    }

    /// The lines of `text`. An ASCII list (any list of plain URLs) is split on its bytes; splitting
    /// by Character (grapheme breaking) cost more per URL than the rest of reading the list.
    private static func lines(of text: String) -> [Substring] {
        let utf8 = text.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return text.split(whereSeparator: \.isNewline) }
        // The ASCII newlines Character.isNewline knows: LF, VT, FF, CR.
        return utf8.split { (0x0A...0x0D).contains($0) }.map { Substring($0) }
    }
}
