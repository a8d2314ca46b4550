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
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
            return CLIPipeline.url(from: trimmed)
        }
    }
}
