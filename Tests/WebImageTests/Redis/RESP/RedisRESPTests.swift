import NIOCore
import Testing
import WebImageRedis

@Suite("RESP2 codec (Redis): round trips, incremental input, bounded refusals")
struct RedisRESPTests {
    private func encoded(_ value: RESPValue) -> ByteBuffer {
        var buffer = ByteBuffer()
        RESPEncoder.write(value, into: &buffer)
        return buffer
    }

    @Test("every type round-trips, binary bulk strings (CR LF inside, empty) and nested arrays included")
    func roundTrips() throws {
        let values: [RESPValue] = [
            .simpleString("OK"), .error("ERR unknown command"), .integer(-42), .integer(Int.max),
            .bulkString(ByteBuffer(bytes: [0, 13, 10, 255, 36, 42])), .bulkString(ByteBuffer()), .null,
            .array([]), .array([.integer(1), .array([.bulk("a"), .null, .array([.simpleString("deep")])]), .bulk("z")]),
        ]
        let decoder = RESPDecoder()
        for value in values {
            var buffer = encoded(value)
            #expect(try decoder.decode(&buffer) == value)
            #expect(buffer.readableBytes == 0)
        }
    }

    @Test("a command is an array of bulk strings, byte for byte what Redis reads")
    func commandBytes() {
        var buffer = ByteBuffer()
        RESPEncoder.write(RedisCommand("SET", "k", "v"), into: &buffer)
        #expect(String(buffer: buffer) == "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n")
    }

    @Test("bytes arriving one at a time: nothing until the value is whole, and the buffer is left as it was")
    func incremental() throws {
        let value = RESPValue.array([.bulk("hello"), .integer(7), .array([.simpleString("x")])])
        let whole = encoded(value)
        let decoder = RESPDecoder()
        var buffer = ByteBuffer()
        for (index, byte) in whole.readableBytesView.enumerated() {
            buffer.writeInteger(byte)
            let decoded = try decoder.decode(&buffer)
            if index < whole.readableBytes - 1 {
                #expect(decoded == nil)
                #expect(buffer.readableBytes == index + 1)
            } else {
                #expect(decoded == value)
            }
        }
    }

    @Test("two values in one read come out one at a time, in order")
    func twoInOneBuffer() throws {
        var buffer = encoded(.integer(1))
        buffer.writeImmutableBuffer(encoded(.bulk("two")))
        let decoder = RESPDecoder()
        #expect(try decoder.decode(&buffer) == .integer(1))
        #expect(try decoder.decode(&buffer) == .bulk("two"))
        #expect(try decoder.decode(&buffer) == nil)
    }

    @Test("refused: a bulk string over the cap (from its header alone), nesting too deep, an array too long, an endless line, an unknown type")
    func refusals() {
        let decoder = RESPDecoder(limits: RESPLimits(maxBulkLength: 1000, maxDepth: 4, maxArrayCount: 10, maxLineLength: 32))
        func refused(_ text: String, _ expected: RESPDecodingError) {
            var buffer = ByteBuffer(string: text)
            #expect(throws: expected) { try decoder.decode(&buffer) }
        }
        refused("$1001\r\n", .bulkTooLong(length: 1001, limit: 1000))
        refused("$999999999999\r\n", .bulkTooLong(length: 999_999_999_999, limit: 1000))
        refused(String(repeating: "*1\r\n", count: 5) + ":1\r\n", .tooDeep(limit: 4))
        refused("*11\r\n", .arrayTooLong(count: 11, limit: 10))
        refused("+" + String(repeating: "a", count: 40), .lineTooLong(limit: 32))
        refused("!oops\r\n", .unknownType(UInt8(ascii: "!")))
        refused(":12x\r\n", .badNumber("12x"))
        refused("$3\r\nabcXY", .missingTerminator)
        // Four levels is within the bound.
        var fine = ByteBuffer(string: String(repeating: "*1\r\n", count: 4) + ":1\r\n")
        #expect((try? decoder.decode(&fine)) == .array([.array([.array([.array([.integer(1)])])])]))
    }
}
