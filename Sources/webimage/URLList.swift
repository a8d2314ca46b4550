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
        // An ASCII list (any list of plain URLs) is split and trimmed on its bytes: by Character
        // (grapheme breaking) and with Foundation's trimming, each cost more per URL than the rest
        // of reading the list.
        let isASCII = text.utf8.allSatisfy { $0 < 0x80 }
        return lines(of: text, isASCII: isASCII).compactMap { line in
            let trimmed = isASCII ? trimmingSpacesAndTabs(line) : Substring(line.trimmingCharacters(in: .whitespaces))
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
            return CLIPipeline.url(from: String(trimmed))
        }
    }

    private static func lines(of text: String, isASCII: Bool) -> [Substring] {
        guard isASCII else { return text.split(whereSeparator: \.isNewline) }
        // The ASCII newlines Character.isNewline knows: LF, VT, FF, CR.
        return text.utf8.split { (0x0A...0x0D).contains($0) }.map { Substring($0) }
    }

    /// `line` without the spaces and tabs around it (the ASCII part of `CharacterSet.whitespaces`).
    private static func trimmingSpacesAndTabs(_ line: Substring) -> Substring {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let bytes = line.utf8
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return Substring(bytes[first...last])
    }
}
