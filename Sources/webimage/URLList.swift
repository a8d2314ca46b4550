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
        var text = text
        if let urls = text.withUTF8(parseASCII) { return urls }
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            url(fromLine: line.trimmingCharacters(in: .whitespaces))
        }
    }

    /// An ASCII list (any list of plain URLs), split and trimmed on its bytes in place: by
    /// Character (grapheme breaking) and with Foundation's trimming, each cost more per URL than
    /// the rest of reading the list. `nil` when the text is not all ASCII.
    private static func parseASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> [URL]? {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        // The ASCII newlines Character.isNewline knows: LF, VT, FF, CR.
        return bytes.split { (0x0A...0x0D).contains($0) }.compactMap { line in
            guard let first = line.firstIndex(where: { !isBlank($0) }), let last = line.lastIndex(where: { !isBlank($0) }) else {
                return nil
            }
            return url(fromLine: String(decoding: line[first...last], as: UTF8.self))
        }
    }

    /// The URL on a trimmed line; `nil` for a blank line or a `#` comment.
    private static func url(fromLine line: String) -> URL? {
        guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
        return CLIPipeline.url(from: line)
    }
}
