import NIOCore
import NIOPosix
import Synchronization

/// A tiny DNS responder on a free UDP port of 127.0.0.1, for the resolver specs: each name gets an
/// A record with a TTL, NXDOMAIN, or no answer at all (a name whose DNS never answers). AAAA
/// queries for answered names get no records. Counts the A queries per name.
final class TestDNSResponder: Sendable {
    enum Rule: Sendable {
        case answer(String, ttl: UInt32)
        case notFound
        case silent
    }

    let port: Int
    private let channel: any Channel
    private let counter: Counter

    private init(port: Int, channel: any Channel, counter: Counter) {
        self.port = port
        self.channel = channel
        self.counter = counter
    }

    /// `rule` decides each name (lower case, no root dot).
    static func start(_ rule: @escaping @Sendable (String) -> Rule) async throws -> TestDNSResponder {
        let counter = Counter()
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(rule: rule, counter: counter))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestDNSResponder(port: channel.localAddress!.port!, channel: channel, counter: counter)
    }

    /// `ADDRESS:PORT` for c-ares.
    var server: String { "127.0.0.1:\(port)" }

    /// A queries seen for `name`.
    func queries(_ name: String) -> Int { counter.counts.withLock { $0[name, default: 0] } }

    func shutdown() async {
        try? await channel.close()
    }

    private final class Counter: Sendable {
        let counts = Mutex<[String: Int]>([:])
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>
        let rule: @Sendable (String) -> Rule
        let counter: Counter

        init(rule: @escaping @Sendable (String) -> Rule, counter: Counter) {
            self.rule = rule
            self.counter = counter
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let packet = Array(envelope.data.readableBytesView)
            guard packet.count > 12, packet[4] == 0, packet[5] == 1 else { return }
            var labels: [String] = []
            var offset = 12
            while offset < packet.count, packet[offset] != 0 {
                let length = Int(packet[offset])
                guard offset + 1 + length <= packet.count else { return }
                labels.append(String(decoding: packet[(offset + 1)..<(offset + 1 + length)], as: UTF8.self))
                offset += 1 + length
            }
            guard offset + 5 <= packet.count else { return }
            let qtype = UInt16(packet[offset + 1]) << 8 | UInt16(packet[offset + 2])
            let question = packet[12..<(offset + 5)]
            let name = labels.joined(separator: ".").lowercased()
            if qtype == 1 { counter.counts.withLock { $0[name, default: 0] += 1 } }
            let decision = rule(name)
            if case .silent = decision { return }
            var answer: [UInt8] = []
            var rcode: UInt8 = 0
            switch decision {
            case .answer(let address, let ttl) where qtype == 1:
                let octets = address.split(separator: ".").compactMap { UInt8($0) }
                answer = [0xC0, 0x0C, 0, 1, 0, 1] + withUnsafeBytes(of: ttl.bigEndian, Array.init) + [0, 4] + octets
            case .notFound:
                rcode = 3
            default:
                break
            }
            // Response, authoritative, recursion desired copied, recursion available.
            let flags: [UInt8] = [0x84 | (packet[2] & 0x01), 0x80 | rcode]
            var reply = Array(packet[0..<2]) + flags + [0, 1, 0, answer.isEmpty ? 0 : 1, 0, 0, 0, 0]
            reply += question
            reply += answer
            let buffer = context.channel.allocator.buffer(bytes: reply)
            context.writeAndFlush(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: buffer)), promise: nil)
        }
    }
}
