import Foundation
import WebImageServer

// ThumborPath(parsing:decodingSource:) on any bytes (as UTF-8, invalid sequences repaired), both ways: it never
// traps, and what it accepts round-trips through its canonical form — canonicalPath (the source percent-encoded
// as one segment) when the source is decoded, `unsafe/` + canonicalOptions + `/` + source when it is taken as
// written — parsing again (the same way) to the same options (trim, crop, fit-in, size, flips, alignment, smart,
// filters, meta), the same canonicalOptions (the result cache's key) and the same source. Any difference aborts
// with both paths.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    for decoding in [true, false] {
        guard let path = try? ThumborPath(parsing: text, decodingSource: decoding) else { continue }
        roundTrip(path, text, decodingSource: decoding)
    }
    return 0
}

private func roundTrip(_ path: ThumborPath, _ text: String, decodingSource: Bool) {
    let rebuilt = decodingSource ? path.canonicalPath : "unsafe/" + path.canonicalOptions + "/" + path.source
    let again: ThumborPath
    do {
        again = try ThumborPath(parsing: rebuilt, decodingSource: decodingSource)
    } catch {
        fatalError("canonical path does not parse (\(error), decodingSource \(decodingSource)): \(rebuilt.debugDescription) from \(text.debugDescription)")
    }
    var differences: [String] = []
    func compare<T: Equatable>(_ name: String, _ key: KeyPath<ThumborPath, T>) {
        if path[keyPath: key] != again[keyPath: key] { differences.append("\(name): \(String(reflecting: path[keyPath: key])) -> \(String(reflecting: again[keyPath: key]))") }
    }
    compare("meta", \.meta)
    compare("trim", \.trim)
    compare("crop", \.crop)
    compare("fitIn", \.fitIn)
    compare("width", \.width)
    compare("height", \.height)
    compare("flipHorizontally", \.flipHorizontally)
    compare("flipVertically", \.flipVertically)
    compare("horizontalAlign", \.horizontalAlign)
    compare("verticalAlign", \.verticalAlign)
    compare("smart", \.smart)
    compare("filters", \.filters)
    compare("canonicalOptions", \.canonicalOptions)
    compare("source", \.source)
    if !differences.isEmpty {
        // NUL would cut fatalError's message short.
        let changes = differences.joined(separator: "; ").replacingOccurrences(of: "\0", with: "\\0")
        fatalError("""
            canonical round trip (decodingSource \(decodingSource)) changed \(changes)
              input:   \(text.debugDescription)
              rebuilt: \(rebuilt.debugDescription)
            """)
    }
}
