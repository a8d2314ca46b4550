import NIOCore
import NIOHTTP1

/// NIO's response decoder for a pipeline that writes requests as bytes
/// (``DownloadRequest/http1Bytes(allocator:)``) instead of through `HTTPRequestEncoder`. The
/// decoder must still hear of every request, in order: the answer to a `HEAD` (or a `CONNECT`)
/// has no body whatever its `Content-Length` says, and a response to no request is an error. It
/// reads the method off the request's first bytes — one buffer is one request.
struct HTTP1ResponseDecoder: WriteObservingByteToMessageDecoder {
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = ByteBuffer

    private let decoder = HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)
    // The decoder reads only the method; one head each, made once.
    private static let head = HTTPRequestHead(version: .http1_1, method: .HEAD, uri: "/")
    private static let connect = HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: "/")
    private static let other = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")

    mutating func write(data: ByteBuffer) {
        let bytes = data.readableBytesView
        let head = bytes.starts(with: "HEAD ".utf8) ? Self.head : bytes.starts(with: "CONNECT ".utf8) ? Self.connect : Self.other
        decoder.write(data: .head(head))
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        try decoder.decode(context: context, buffer: &buffer)
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decoder.decodeLast(context: context, buffer: &buffer, seenEOF: seenEOF)
    }

    mutating func decoderAdded(context: ChannelHandlerContext) { decoder.decoderAdded(context: context) }

    mutating func decoderRemoved(context: ChannelHandlerContext) { decoder.decoderRemoved(context: context) }
}
