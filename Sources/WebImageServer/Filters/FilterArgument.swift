/// One argument's grammar, as thumbor's `BaseFilter` types spell them. Parsing is total: text that
/// does not match is nil (the filter is then refused or ignored by its row), never a trap.
public enum FilterArgument: Sendable, Hashable {
    /// `[-]?\d+` (`BaseFilter.Number`).
    case number
    /// `\d+` (`BaseFilter.PositiveNumber`).
    case positiveNumber
    /// `[-]?(\d+\.?\d*|\d*\.?\d+)` (`BaseFilter.DecimalNumber`).
    case decimal
    /// `True`, `False`, `1` or `0`, any case (`BaseFilter.Boolean`).
    case boolean
    /// Any text (`BaseFilter.String`).
    case string
    /// `\d+(\|\d+)?`: `round_corner`'s horizontal and optional vertical radius.
    case radii
    /// `-?\d+(\.\d*)?` terms joined by `;`: `convolution`'s matrix, at most 625 of them.
    case kernel
    /// `[(x,y),…]`: one of `curve`'s point lists, 1 to 256 points of 0–255.
    case curve

    /// Digits kept per number: enough for any size, short enough that no sum of a few overflows.
    static let maximumDigits = 9

    /// `text` as a value of this grammar, or nil when it does not match.
    public func parse(_ text: String) -> FilterValue? {
        switch self {
        case .number: Self.integer(text, signed: true).map(FilterValue.integer)
        case .positiveNumber: Self.integer(text, signed: false).map(FilterValue.integer)
        case .decimal: Self.decimal(text).map(FilterValue.decimal)
        case .boolean:
            switch text.lowercased() {
            case "true", "1": .boolean(true)
            case "false", "0": .boolean(false)
            default: nil
            }
        case .string: .string(text)
        case .radii:
            switch text.split(separator: "|", omittingEmptySubsequences: false) {
            case let parts where parts.count == 1:
                Self.integer(String(parts[0]), signed: false).map { .radii($0, $0) }
            case let parts where parts.count == 2:
                Self.integer(String(parts[0]), signed: false).flatMap { a in
                    Self.integer(String(parts[1]), signed: false).map { b in .radii(a, b) }
                }
            default: nil
            }
        case .kernel: ConvolutionKernel.parseTerms(text).map(FilterValue.kernel)
        case .curve: CurvePoint.parseList(text).map(FilterValue.curve)
        }
    }

    private static func integer(_ text: String, signed: Bool) -> Int? {
        var digits = Substring(text)
        if signed, digits.first == "-" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= maximumDigits, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private static func decimal(_ text: String) -> Double? {
        var body = Substring(text)
        if body.first == "-" { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.contains(where: { !$0.isEmpty }),
              parts.allSatisfy({ $0.count <= maximumDigits && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let value = Double(text.hasSuffix(".") ? text + "0" : text), value.isFinite
        else { return nil }
        return value
    }
}

/// A parsed filter argument.
public enum FilterValue: Sendable, Hashable {
    case integer(Int)
    case decimal(Double)
    case boolean(Bool)
    case string(String)
    case radii(Int, Int)
    case kernel([Double])
    case curve([CurvePoint])

    /// The value as a number (integers and decimals alike).
    public var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .decimal(let value): value
        default: nil
        }
    }

    public var integer: Int? {
        if case .integer(let value) = self { value } else { nil }
    }

    public var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    public var boolean: Bool? {
        if case .boolean(let value) = self { value } else { nil }
    }
}
