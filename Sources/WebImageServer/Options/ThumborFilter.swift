import Foundation

/// One filter of a thumbor path, `name(arg,arg)`, as written. Which filters mean something is the
/// processor's business: an unknown one is kept here and ignored there (with a log line, as thumbor does).
public struct ThumborFilter: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var arguments: [String]

    public init(name: String, arguments: [String] = []) {
        self.name = name
        self.arguments = arguments
    }

    public var description: String { "\(name)(\(arguments.joined(separator: ",")))" }

    /// `f(a):g(b,c)` → two filters. Arguments may hold `:` and `/` (a watermark's URL), so the
    /// list is split at `:` only between a `)` and the next name. Delimiters are Unicode scalars (a
    /// combining mark never hides a `(`), and `f( )` has no arguments, as `f()`.
    static func parseList(_ text: Substring.UnicodeScalarView) throws(ThumborPathError) -> [ThumborFilter] {
        var filters: [ThumborFilter] = []
        var rest = text
        while !rest.isEmpty {
            guard let open = rest.firstIndex(of: "("), let close = closingParenthesis(in: rest, after: open) else {
                throw .badFilter(String(Substring(rest)))
            }
            let name = rest[..<open]
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }) else {
                throw .badFilter(String(Substring(rest)))
            }
            let inside = String(Substring(rest[rest.index(after: open)..<close]))
            let arguments = inside.trimmingCharacters(in: .whitespaces).isEmpty ? [] : splitArguments(inside.unicodeScalars)
                .map { String(String.UnicodeScalarView($0)).trimmingCharacters(in: .whitespaces) }
            filters.append(ThumborFilter(name: String(Substring(name)), arguments: arguments))
            rest = rest[rest.index(after: close)...]
            if rest.first == ":" { rest = rest.dropFirst() } else if !rest.isEmpty { throw .badFilter(String(Substring(rest))) }
        }
        return filters
    }

    /// An argument list split at its commas, except those inside `[…]` (`curve`'s point lists
    /// `[(0,0),(255,255)]` are one argument each, as thumbor's regex reads them).
    private static func splitArguments(_ text: String.UnicodeScalarView) -> [Substring.UnicodeScalarView] {
        var depth = 0
        return text[...].split(omittingEmptySubsequences: false) { scalar in
            switch scalar {
            case "[": depth += 1
            case "]": depth = max(0, depth - 1)
            case ",": return depth == 0
            default: break
            }
            return false
        }
    }

    /// The `)` that ends the argument list opened at `open`, nested parentheses counted.
    private static func closingParenthesis(
        in text: Substring.UnicodeScalarView, after open: Substring.UnicodeScalarView.Index
    ) -> Substring.UnicodeScalarView.Index? {
        var depth = 0
        var index = open
        while index < text.endIndex {
            switch text[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index = text.index(after: index)
        }
        return nil
    }
}
