/// HTTP header fields: names compared case-insensitively, order and repeated fields kept as
/// given (`Set-Cookie` may appear many times).
public struct HTTPHeaderFields: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The fields in order, names as given.
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`; setting replaces every field of that name (`nil` removes them).
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            guard let newValue else { return remove(name) }
            guard let first = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) else {
                return fields.append((name, newValue))
            }
            fields[first].value = newValue
            fields = Array(fields[...first]) + fields[(first + 1)...].filter { !$0.name.caseInsensitiveEquals(name) }
        }
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Adds a field, keeping any of the same name.
    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) { fields.removeAll { $0.name.caseInsensitiveEquals(name) } }

    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }

    public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
