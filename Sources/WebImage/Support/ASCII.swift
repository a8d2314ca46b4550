/// Byte-level ASCII helpers for protocol text (field names, tokens, URL schemes) read in place.
enum ASCII {
    /// Whether `bytes` spell `lowercased` in any case. `| 0x20` lowercases a letter and leaves
    /// the other bytes these names and tokens use (`-`, `+`, `.`, digits) as they are.
    static func equalsIgnoringCase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercased: StaticString) -> Bool {
        guard bytes.count == lowercased.utf8CodeUnitCount else { return false }
        let expected = lowercased.utf8Start
        var offset = 0
        for byte in bytes {
            guard byte | 0x20 == expected[offset] else { return false }
            offset += 1
        }
        return true
    }

    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercased: StaticString) -> Bool {
        equalsIgnoringCase(bytes[...], lowercased)
    }

    /// `bytes` without the spaces and tabs around them.
    static func trimmingSpacesAndTabs(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> UnsafeBufferPointer<UInt8> {
        var trimmed = bytes
        while let first = trimmed.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { trimmed = trimmed.dropLast() }
        return UnsafeBufferPointer(rebasing: trimmed)
    }
}
