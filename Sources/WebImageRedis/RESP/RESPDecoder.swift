import NIOCore

/// Bounds on what the decoder accepts, so a broken or hostile peer cannot make it allocate
/// without limit or recurse without end.
public struct RESPLimits: Sendable, Hashable {
    /// The largest bulk string (Redis's own `proto-max-bulk-len` default is 512 MB; ours is far less).
    public var maxBulkLength: Int
    /// The deepest nesting of arrays (our commands' replies are at most 2 deep; EXEC and EVAL 3).
    public var maxDepth: Int
    /// The most elements in one array (SMEMBERS of a source's variants is the largest we ask for).
    public var maxArrayCount: Int
    /// The longest simple string, error or number line.
    public var maxLineLength: Int

    public init(maxBulkLength: Int = 64 << 20, maxDepth: Int = 16, maxArrayCount: Int = 1 << 20, maxLineLength: Int = 64 << 10) {
        self.maxBulkLength = maxBulkLength
        self.maxDepth = maxDepth
        self.maxArrayCount = maxArrayCount
        self.maxLineLength = maxLineLength
    }

    public static let `default` = RESPLimits()
}

/// Why bytes from the peer were not RESP we accept. The connection is closed after any of these.
public enum RESPDecodingError: Error, Sendable, Hashable {
    case unknownType(UInt8)
    case badNumber(String)
    case bulkTooLong(length: Int, limit: Int)
    case arrayTooLong(count: Int, limit: Int)
    case tooDeep(limit: Int)
    case lineTooLong(limit: Int)
    case missingTerminator
}

/// An incremental RESP2 parser over a `ByteBuffer`: ``decode(_:)`` returns one value when the
/// buffer holds all of it (moving the reader index past it), nil when more bytes are needed
/// (leaving the buffer as it was).
public struct RESPDecoder: Sendable {
    public var limits: RESPLimits

    public init(limits: RESPLimits = .default) { self.limits = limits }

    public func decode(_ buffer: inout ByteBuffer) throws(RESPDecodingError) -> RESPValue? {
        var reader = buffer
        guard let value = try parse(&reader, depth: 0) else { return nil }
        buffer = reader
        return value
    }

    private func parse(_ buffer: inout ByteBuffer, depth: Int) throws(RESPDecodingError) -> RESPValue? {
        guard let type = buffer.readInteger(as: UInt8.self) else { return nil }
        switch type {
        case UInt8(ascii: "+"):
            return try line(&buffer).map { .simpleString(String(buffer: $0)) }
        case UInt8(ascii: "-"):
            return try line(&buffer).map { .error(String(buffer: $0)) }
        case UInt8(ascii: ":"):
            return try number(&buffer).map { .integer($0) }
        case UInt8(ascii: "$"):
            guard let length = try number(&buffer) else { return nil }
            if length < 0 { return .null }
            guard length <= limits.maxBulkLength else { throw .bulkTooLong(length: length, limit: limits.maxBulkLength) }
            guard buffer.readableBytes >= length + 2 else { return nil }
            let bytes = buffer.readSlice(length: length)!
            guard buffer.readBytes(length: 2) == [13, 10] else { throw .missingTerminator }
            return .bulkString(bytes)
        case UInt8(ascii: "*"):
            guard let count = try number(&buffer) else { return nil }
            if count < 0 { return .null }
            guard count <= limits.maxArrayCount else { throw .arrayTooLong(count: count, limit: limits.maxArrayCount) }
            guard depth < limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
            var values: [RESPValue] = []
            values.reserveCapacity(min(count, 1024))  // the count is the peer's word: reserve only a little on it
            for _ in 0..<count {
                guard let element = try parse(&buffer, depth: depth + 1) else { return nil }
                values.append(element)
            }
            return .array(values)
        default:
            throw .unknownType(type)
        }
    }

    /// The bytes up to CRLF (consumed with it), or nil when the CRLF has not arrived.
    private func line(_ buffer: inout ByteBuffer) throws(RESPDecodingError) -> ByteBuffer? {
        let view = buffer.readableBytesView
        guard let cr = view.firstIndex(of: 13) else {
            if view.count > limits.maxLineLength { throw .lineTooLong(limit: limits.maxLineLength) }
            return nil
        }
        let length = cr - view.startIndex
        guard length <= limits.maxLineLength else { throw .lineTooLong(limit: limits.maxLineLength) }
        guard buffer.readableBytes >= length + 2 else { return nil }
        let text = buffer.readSlice(length: length)!
        guard buffer.readInteger(as: UInt8.self) == 13, buffer.readInteger(as: UInt8.self) == 10 else {
            throw .missingTerminator
        }
        return text
    }

    private func number(_ buffer: inout ByteBuffer) throws(RESPDecodingError) -> Int? {
        guard let text = try line(&buffer) else { return nil }
        let string = String(buffer: text)
        guard string.count <= 20, let value = Int(string) else { throw .badNumber(String(string.prefix(32))) }
        return value
    }
}

/// ``RESPDecoder`` in a channel pipeline.
struct RESPMessageDecoder: ByteToMessageDecoder {
    typealias InboundOut = RESPValue
    let decoder: RESPDecoder

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let value = try decoder.decode(&buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(value))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
