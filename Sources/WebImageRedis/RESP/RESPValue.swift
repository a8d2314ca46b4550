import NIOCore

/// One RESP2 value, as Redis sends it.
public enum RESPValue: Sendable, Hashable {
    case simpleString(String)
    /// An error reply (`-ERR …`): the server is up and refused the command.
    case error(String)
    case integer(Int)
    case bulkString(ByteBuffer)
    case array([RESPValue])
    /// A null bulk string (`$-1`) or a null array (`*-1`): e.g. GET of a missing key.
    case null

    /// A bulk string holding `text`'s UTF-8.
    public static func bulk(_ text: String) -> RESPValue { .bulkString(ByteBuffer(string: text)) }

    /// The text of a simple or bulk string.
    public var string: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let buffer): String(buffer: buffer)
        default: nil
        }
    }

    /// The bytes of a bulk string.
    public var buffer: ByteBuffer? {
        if case .bulkString(let buffer) = self { return buffer }
        return nil
    }

    public var integer: Int? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var array: [RESPValue]? {
        if case .array(let values) = self { return values }
        return nil
    }
}
