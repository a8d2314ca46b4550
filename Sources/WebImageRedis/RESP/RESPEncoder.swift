import NIOCore

/// Writes RESP2. Commands go out as arrays of bulk strings, the only form Redis reads from clients.
public enum RESPEncoder {
    /// Appends `value` to `buffer`.
    public static func write(_ value: RESPValue, into buffer: inout ByteBuffer) {
        switch value {
        case .simpleString(let text):
            buffer.writeInteger(UInt8(ascii: "+"))
            buffer.writeString(text)
            buffer.writeStaticString("\r\n")
        case .error(let text):
            buffer.writeInteger(UInt8(ascii: "-"))
            buffer.writeString(text)
            buffer.writeStaticString("\r\n")
        case .integer(let number):
            buffer.writeInteger(UInt8(ascii: ":"))
            buffer.writeString(String(number))
            buffer.writeStaticString("\r\n")
        case .bulkString(var bytes):
            writeBulk(&bytes, into: &buffer)
        case .array(let values):
            writeHeader("*", values.count, into: &buffer)
            for element in values { write(element, into: &buffer) }
        case .null:
            buffer.writeStaticString("$-1\r\n")
        }
    }

    /// Appends `command` as an array of bulk strings.
    public static func write(_ command: RedisCommand, into buffer: inout ByteBuffer) {
        writeHeader("*", command.arguments.count, into: &buffer)
        for var argument in command.arguments { writeBulk(&argument, into: &buffer) }
    }

    private static func writeBulk(_ bytes: inout ByteBuffer, into buffer: inout ByteBuffer) {
        writeHeader("$", bytes.readableBytes, into: &buffer)
        buffer.writeBuffer(&bytes)
        buffer.writeStaticString("\r\n")
    }

    private static func writeHeader(_ type: Unicode.Scalar, _ count: Int, into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: type))
        buffer.writeString(String(count))
        buffer.writeStaticString("\r\n")
    }
}

/// A command as Redis reads it: the name and its arguments, each a binary-safe string.
public struct RedisCommand: Sendable, Hashable {
    public var arguments: [ByteBuffer]

    public init(arguments: [ByteBuffer]) { self.arguments = arguments }

    /// `RedisCommand("SET", "k", "v")`: every word as UTF-8.
    public init(_ name: String, _ words: String...) {
        arguments = ([name] + words).map { ByteBuffer(string: $0) }
    }

    /// `RedisCommand("SET", ["k", "v"])`.
    public init(_ name: String, _ words: [String]) {
        arguments = ([name] + words).map { ByteBuffer(string: $0) }
    }

    /// The name, for logs and metrics (never the arguments, which may hold secrets).
    public var name: String { arguments.first.map { String(buffer: $0).uppercased() } ?? "" }
}
