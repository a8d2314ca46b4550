/// A minimal XML tree for OpenCV's cascade files: elements, their children and their text.
/// Attributes, comments, processing instructions and entities other than the five predefined
/// ones are skipped; OpenCV's `FileStorage` XML uses nothing else. Parsing is total: malformed
/// input is an error, never a trap, and nesting is bounded.
struct CascadeXMLElement: Sendable {
    var name: String
    var children: [CascadeXMLElement] = []
    var text: String = ""

    /// The first child named `name`.
    func child(_ name: String) -> CascadeXMLElement? { children.first { $0.name == name } }

    /// Deeper than any cascade file nests (five levels); a guard against hostile input.
    static let maximumDepth = 32

    /// The document element of `bytes`.
    static func parse(_ bytes: [UInt8]) throws(CascadeError) -> CascadeXMLElement {
        var stack: [CascadeXMLElement] = [CascadeXMLElement(name: "")]
        var index = 0
        let count = bytes.count
        func find(_ pattern: [UInt8], from start: Int) -> Int? {
            guard !pattern.isEmpty, count >= pattern.count else { return nil }
            var i = start
            while i <= count - pattern.count {
                if bytes[i] == pattern[0], Array(bytes[i..<i + pattern.count]) == pattern { return i }
                i += 1
            }
            return nil
        }
        while index < count {
            guard bytes[index] == UInt8(ascii: "<") else {
                let end = bytes[index...].firstIndex(of: UInt8(ascii: "<")) ?? count
                stack[stack.count - 1].text += String(decoding: bytes[index..<end], as: UTF8.self)
                index = end
                continue
            }
            if bytes[index...].starts(with: Array("<!--".utf8)) {
                guard let end = find(Array("-->".utf8), from: index + 4) else { throw .malformed("unterminated comment") }
                index = end + 3
                continue
            }
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { throw .malformed("unterminated tag") }
            let tag = bytes[(index + 1)..<close]
            index = close + 1
            guard let first = tag.first else { throw .malformed("empty tag") }
            if first == UInt8(ascii: "?") || first == UInt8(ascii: "!") { continue }
            if first == UInt8(ascii: "/") {
                let name = String(decoding: tag.dropFirst(), as: UTF8.self).trimmingSpaces
                guard stack.count > 1, stack[stack.count - 1].name == name else { throw .malformed("mismatched </\(name)>") }
                let element = stack.removeLast()
                stack[stack.count - 1].children.append(element)
                continue
            }
            let selfClosing = tag.last == UInt8(ascii: "/")
            let body = selfClosing ? tag.dropLast() : tag
            let nameEnd = body.firstIndex { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } ?? body.endIndex
            let element = CascadeXMLElement(name: String(decoding: body[body.startIndex..<nameEnd], as: UTF8.self))
            if selfClosing {
                stack[stack.count - 1].children.append(element)
            } else {
                guard stack.count <= maximumDepth else { throw .malformed("nested too deep") }
                stack.append(element)
            }
        }
        guard stack.count == 1, let root = stack[0].children.first else { throw .malformed("unclosed element or no document") }
        return root
    }
}

extension String {
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[start...end])
    }

    /// The whitespace-separated numbers in the text; nil when one does not read as a number.
    var numbers: [Double]? {
        var values: [Double] = []
        for word in split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }) {
            guard let value = Double(word), value.isFinite else { return nil }
            values.append(value)
        }
        return values
    }
}
