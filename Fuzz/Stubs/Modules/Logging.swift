// swift-log's Logger as the server's processing code uses it (info with metadata): the fuzzer drops every line.
public struct Logger: Sendable {
    public enum MetadataValue: Sendable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
        case string(String)
        public init(stringLiteral value: String) { self = .string(value) }
    }

    public typealias Metadata = [String: MetadataValue]
    public let label: String

    public init(label: String) { self.label = label }

    public func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {}
}
