import Foundation
import NIOCore
import Testing
@testable import WebImage

/// The one body accumulator every carrier uses: the size limit, and large bodies waiting on disk
/// instead of in the process.
@Suite("ResponseBody", .onOwnThreads)
struct ResponseBodyTests {
    private static func chunks(_ total: Int, of size: Int) -> [ByteBuffer] {
        stride(from: 0, to: total, by: size).map { start in
            ByteBuffer(bytes: (start..<min(total, start + size)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        }
    }

    private static func folder() -> URL {
        TemporaryFolder.url("spill")
    }

    @Test("past the threshold the body moves to an unlinked file and comes back whole, byte for byte")
    func spillsAndComesBack() throws {
        let directory = Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        var body = ResponseBody(limit: 50 << 20, spill: BodySpill(directory: directory, threshold: 1 << 20))
        var expected = Data()
        for chunk in Self.chunks(5 << 20, of: 16_384) {
            let kept = body.append(chunk)
            #expect(kept)
            expected.append(contentsOf: chunk.readableBytesView)
        }
        #expect(body.count == 5 << 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "the file was unlinked at once")
        #expect(body.data() == expected)
    }

    @Test("the limit holds in memory and spilled alike", arguments: [nil, 1_000] as [Int64?])
    func limit(_ threshold: Int64?) {
        let directory = Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        var body = ResponseBody(limit: 10_000, spill: threshold.map { BodySpill(directory: directory, threshold: $0) })
        var results: [Bool] = []
        for chunk in Self.chunks(12_000, of: 4_000) { results.append(body.append(chunk)) }
        #expect(results == [true, true, false])
    }

    @Test("a spill folder that cannot be made keeps the body in memory, whole")
    func unusableFolder() {
        var body = ResponseBody(limit: 1 << 20, spill: BodySpill(directory: URL(fileURLWithPath: "/dev/null/spill"), threshold: 100))
        var expected = Data()
        for chunk in Self.chunks(50_000, of: 1_000) {
            let kept = body.append(chunk)
            #expect(kept)
            expected.append(contentsOf: chunk.readableBytesView)
        }
        #expect(body.data() == expected)
    }

    @Test("a body that is only read (a redirect's) is counted against the limit and not kept")
    func discarded() {
        var body = ResponseBody(limit: 5_000, spill: nil)
        let first = body.discard(ByteBuffer(repeating: 1, count: 4_000))
        let second = body.discard(ByteBuffer(repeating: 1, count: 4_000))
        #expect(first && !second)
        #expect(body.data().isEmpty)
    }

    @Test("a spilled download arrives whole over each carrier, and the folder keeps nothing", arguments: DownloaderConfig.Transport.carriers)
    func spilledDownload(_ carrier: DownloaderConfig.Transport) async throws {
        let directory = Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withOrigin(over: carrier, { $0.bodySpill = BodySpill(directory: directory, threshold: 1_000) }) { origin, downloader in
            origin.route("/big.png", .chunked(.fixture("png-16bit.png"), chunkSize: 700))
            let result = try await downloader.loadImage(with: origin.url("/big.png"))
            let fixture = try Data(contentsOf: TestOrigin.fixturesDirectory.appendingPathComponent("png-16bit.png"))
            #expect(result.data == fixture)
            #expect(result.image.pixelSize.width > 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }
}
