import CPNG
import Foundation
import Testing
@testable import WebImage

/// The whole-buffer path (libdeflate + C unfiltering) against libpng's rows: the same pixels, alpha
/// and colour for every stream it takes, and libpng's own answer for every stream it does not.
@Suite("PNG whole-buffer decoding", .onOwnThreads)
struct PNGWholeBufferDecodingTests {
    /// Both paths' outcome: pixels, alpha, colour, or the error.
    struct Outcome: Equatable {
        var bitmap: Bitmap?
        var hasAlpha = false
        var profile: ColorProfile?
        var error: ImageCoderError?
        var wholeBuffer = false
    }

    static func decode(_ data: Data, wholeBuffer: Bool, maxPixelCount: Int = ImageDecodeOptions.defaultMaxPixelCount) -> Outcome {
        let decoder = PNGPushDecoder(maxPixelCount: maxPixelCount, allowsWholeBuffer: wholeBuffer)
        do {
            let bitmap = try decoder.decodeAll(data)
            return Outcome(bitmap: bitmap, hasAlpha: decoder.hasAlpha, profile: decoder.colorProfile, wholeBuffer: decoder.decodedWholeBuffer)
        } catch {
            return Outcome(error: error as? ImageCoderError)
        }
    }

    /// Decodes both ways and expects the same outcome; returns whether the whole-buffer path took it.
    @discardableResult
    static func expectSameAsLibpng(_ data: Data, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        let libpng = decode(data, wholeBuffer: false)
        var fast = decode(data, wholeBuffer: true)
        let tookIt = fast.wholeBuffer
        fast.wholeBuffer = false
        #expect(fast == libpng, "\(comment)", sourceLocation: sourceLocation)
        if fast.bitmap == nil {
            #expect(fast.error != nil, "a typed error: \(comment)", sourceLocation: sourceLocation)
        }
        fast.wholeBuffer = tookIt
        return fast
    }

    @Test func everyPNGFixtureDecodesAsLibpngDoes() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path).filter { $0.hasSuffix(".png") }.sorted()
        #expect(names.count > 20)
        var taken = 0
        for name in names {
            let outcome = Self.expectSameAsLibpng(try Fixtures.data(name), name)
            if outcome.wholeBuffer { taken += 1 }
        }
        #expect(taken > names.count / 2, "the common fixtures take the whole-buffer path")
    }

    @Test("every colour type, depth and filter type", arguments: PNGStream.layouts)
    func generatedStreamsMatchLibpng(layout: PNGStream.Layout) throws {
        for filter in [0, 1, 2, 3, 4, 5] as [UInt8] {  // 5: each row its own filter
            for width in [1, 2, 3, 37] {
                let data = PNGStream.make(layout, width: width, height: 9, filter: filter, seed: UInt64(width) * 31 + UInt64(filter))
                let outcome = Self.expectSameAsLibpng(data, "\(layout) filter \(filter) width \(width)")
                #expect(outcome.wholeBuffer, "\(layout) is taken by the whole-buffer path")
                #expect(outcome.bitmap?.size == PixelSize(width: width, height: 9))
            }
        }
    }

    @Test func anInterlacedStreamStaysWithLibpng() throws {
        let outcome = Self.expectSameAsLibpng(try Fixtures.data("png-interlaced.png"), "interlaced")
        #expect(!outcome.wholeBuffer)
        #expect(outcome.bitmap != nil)
    }

    @Test("an interlaced stream of any size decodes whole; one that ends a pass early is corrupt", arguments: [
        (1, 1), (1, 5), (5, 1), (2, 2), (3, 3), (9, 8), (8, 9), (17, 3),
    ])
    func interlacedSizes(width: Int, height: Int) throws {
        let (data, expected) = PNGStream.adam7(width: width, height: height, seed: UInt64(width * 100 + height))
        let outcome = Self.expectSameAsLibpng(data, "\(width)x\(height) interlaced")
        #expect(outcome.bitmap == expected)
        let (short, _) = PNGStream.adam7(width: width, height: height, seed: 1, droppingLastRow: true)
        #expect(Self.decode(short, wholeBuffer: true).error == .corrupt(.png, reason: "image data ends before the last row"))
    }

    @Test func manyIDATChunksAreJoined() throws {
        let data = PNGStream.make(.init(colorType: 2, depth: 8), width: 64, height: 40, filter: 5, seed: 3, idatSize: 100)
        let outcome = Self.expectSameAsLibpng(data, "split IDAT")
        #expect(outcome.wholeBuffer)
    }

    @Test func aBadImageDataCRCIsCorrupt() throws {
        var data = PNGStream.make(.init(colorType: 6, depth: 8), width: 20, height: 10, filter: 4, seed: 1)
        let idatEnd = try #require(PNGStream.chunkEnd("IDAT", in: data))
        data[idatEnd - 1] ^= 0x55
        let outcome = Self.expectSameAsLibpng(data, "IDAT CRC")
        guard case .corrupt(.png, let reason)? = outcome.error else { Issue.record("not corrupt: \(outcome)"); return }
        #expect(reason.contains("CRC"))
    }

    @Test func truncatedImageDataIsTruncated() throws {
        let data = PNGStream.make(.init(colorType: 2, depth: 8), width: 50, height: 30, filter: 5, seed: 2)
        let idatEnd = try #require(PNGStream.chunkEnd("IDAT", in: data))
        for end in [idatEnd - 40, idatEnd - 4, idatEnd + 6] {
            let outcome = Self.expectSameAsLibpng(data.prefix(end), "cut at \(end)")
            #expect(outcome.error == .truncated(.png))
        }
    }

    @Test func aStreamShorterThanTheHeaderSaysIsCorruptALongerOneIsLibpngs() throws {
        let layout = PNGStream.Layout(colorType: 2, depth: 8)
        let rows = PNGStream.filteredRows(layout, width: 30, height: 10, filter: 1, seed: 4)
        let rowBytes = rows.count / 10
        for (name, body) in [("short", Data(rows.prefix(rowBytes * 9))), ("long", rows + Data(rows.prefix(rowBytes * 2))),
                             ("half a row short", Data(rows.prefix(rows.count - rowBytes / 2)))] {
            let data = PNGStream.png(layout, width: 30, height: 10, idat: PNGStream.zlib(body))
            let outcome = Self.expectSameAsLibpng(data, name)
            #expect(!outcome.wholeBuffer, "\(name): left to libpng")
            if name == "long" {
                #expect(outcome.bitmap != nil, "libpng warns about extra data and keeps the rows")
            } else {
                // libpng only warns; the rows it never wrote would be stale memory.
                #expect(outcome.error == .corrupt(.png, reason: "image data ends before the last row"))
            }
        }
    }

    @Test func trailingBytesAfterTheZlibStreamAreLibpngsCall() throws {
        let layout = PNGStream.Layout(colorType: 6, depth: 8)
        let body = PNGStream.filteredRows(layout, width: 12, height: 5, filter: 2, seed: 5)
        let data = PNGStream.png(layout, width: 12, height: 5, idat: PNGStream.zlib(body) + Data([1, 2, 3]))
        let outcome = Self.expectSameAsLibpng(data, "trailing bytes")
        #expect(!outcome.wholeBuffer)
    }

    @Test func aBadFilterByteIsCorrupt() throws {
        let layout = PNGStream.Layout(colorType: 2, depth: 8)
        var body = PNGStream.filteredRows(layout, width: 16, height: 6, filter: 0, seed: 6)
        body[(16 * 3 + 1) * 3] = 7  // row 3's filter byte
        let outcome = Self.expectSameAsLibpng(PNGStream.png(layout, width: 16, height: 6, idat: PNGStream.zlib(body)), "filter 7")
        guard case .corrupt(.png, _)? = outcome.error else { Issue.record("not corrupt: \(outcome)"); return }
    }

    @Test func bytesAfterIENDAreIgnoredAsLibpngDoes() throws {
        let data = PNGStream.make(.init(colorType: 0, depth: 8), width: 10, height: 4, filter: 3, seed: 7) + Data("trailing junk".utf8)
        let outcome = Self.expectSameAsLibpng(data, "after IEND")
        #expect(outcome.wholeBuffer)
        #expect(outcome.bitmap != nil)
    }

    @Test func hugeDimensionsAreRefusedBeforeAnyAllocation() throws {
        let layout = PNGStream.Layout(colorType: 6, depth: 8)
        let bomb = PNGStream.png(layout, width: 60_000, height: 60_000, idat: PNGStream.zlib(Data(count: 100)))
        let outcome = Self.decode(bomb, wholeBuffer: true)
        #expect(outcome.error == .tooLarge(width: 60_000, height: 60_000, limit: ImageDecodeOptions.defaultMaxPixelCount))
        let small = Self.decode(PNGStream.make(layout, width: 20, height: 20, filter: 4, seed: 8), wholeBuffer: true, maxPixelCount: 399)
        #expect(small.error == .tooLarge(width: 20, height: 20, limit: 399))
    }

    @Test func damagedStreamsGiveLibpngsAnswer() throws {
        let data = PNGStream.make(.init(colorType: 3, depth: 4, transparency: true), width: 33, height: 17, filter: 5, seed: 9)
        var generator = SplitMix64(seed: 12)
        for _ in 0..<200 {
            var damaged = data
            let index = 8 + Int(generator.next() % UInt64(data.count - 8))
            damaged[index] = UInt8(truncatingIfNeeded: generator.next())
            Self.expectSameAsLibpng(damaged, "byte \(index)")
        }
    }
}

/// Writes PNG streams of any colour type, depth and filter, the filtering done here.
enum PNGStream {
    struct Layout: CustomStringConvertible, Sendable {
        var colorType: UInt8
        var depth: UInt8
        var transparency = false

        var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)]! }
        var description: String { "type \(colorType) depth \(depth)\(transparency ? " tRNS" : "")" }
    }

    static let layouts: [Layout] = [
        .init(colorType: 0, depth: 1), .init(colorType: 0, depth: 2), .init(colorType: 0, depth: 4),
        .init(colorType: 0, depth: 8), .init(colorType: 0, depth: 16), .init(colorType: 0, depth: 2, transparency: true),
        .init(colorType: 0, depth: 8, transparency: true), .init(colorType: 0, depth: 16, transparency: true),
        .init(colorType: 2, depth: 8), .init(colorType: 2, depth: 16), .init(colorType: 2, depth: 8, transparency: true),
        .init(colorType: 2, depth: 16, transparency: true),
        .init(colorType: 3, depth: 1), .init(colorType: 3, depth: 2), .init(colorType: 3, depth: 4), .init(colorType: 3, depth: 8),
        .init(colorType: 3, depth: 8, transparency: true), .init(colorType: 3, depth: 2, transparency: true),
        .init(colorType: 4, depth: 8), .init(colorType: 4, depth: 16), .init(colorType: 6, depth: 8), .init(colorType: 6, depth: 16),
    ]

    static func make(_ layout: Layout, width: Int, height: Int, filter: UInt8, seed: UInt64, idatSize: Int = .max) -> Data {
        png(layout, width: width, height: height,
            idat: zlib(filteredRows(layout, width: width, height: height, filter: filter, seed: seed)), idatSize: idatSize)
    }

    /// Random samples (palette indices past a short PLTE, colour-key hits included), each row
    /// filtered with `filter` (5: row y with y % 5).
    static func filteredRows(_ layout: Layout, width: Int, height: Int, filter: UInt8, seed: UInt64) -> Data {
        var generator = SplitMix64(seed: seed)
        let bitsPerPixel = layout.channels * Int(layout.depth)
        let rowBytes = (width * bitsPerPixel + 7) / 8, bpp = max(1, bitsPerPixel / 8)
        var prior = [UInt8](repeating: 0, count: rowBytes)
        var out = Data()
        for y in 0..<height {
            var row = (0..<rowBytes).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if y % 3 == 1 { row = prior }  // runs of equal rows hit the colour key and Up's zeros
            if y % 4 == 2, layout.transparency, layout.colorType != 3, layout.depth >= 8 { row.replaceSubrange(0..<min(rowBytes, bpp * 3), with: key(layout, bpp: bpp).prefix(min(rowBytes, bpp * 3))) }
            let type = filter == 5 ? UInt8(y % 5) : filter
            out.append(type)
            for i in 0..<rowBytes {
                let a = i >= bpp ? Int(row[i - bpp]) : 0, b = Int(prior[i]), c = i >= bpp ? Int(prior[i - bpp]) : 0
                let predicted: Int
                switch type {
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
                    predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: predicted = 0
                }
                out.append(UInt8(truncatingIfNeeded: Int(row[i]) - predicted))
            }
            prior = row
        }
        return out
    }

    /// The colour key's bytes repeated (tRNS samples are 16-bit; 8-bit rows take the low byte).
    static func key(_ layout: Layout, bpp: Int) -> [UInt8] {
        let values: [UInt16] = layout.colorType == 2 ? [0x1234, 0x0056, 0x0078] : [0x0042]
        let pixel = values.flatMap { layout.depth == 16 ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF)] }
        return Array((0..<3).flatMap { _ in pixel })
    }

    static func png(_ layout: Layout, width: Int, height: Int, idat: Data, idatSize: Int = .max) -> Data {
        var ihdr = Data()
        withUnsafeBytes(of: UInt32(width).bigEndian) { ihdr.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(height).bigEndian) { ihdr.append(contentsOf: $0) }
        ihdr.append(contentsOf: [layout.depth, layout.colorType, 0, 0, 0])
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + PNGChunks.chunk("IHDR", ihdr)
        if layout.colorType == 3 {
            // Fewer entries than indices: libpng reads the missing ones as black.
            let entries = min(1 << Int(layout.depth), 200) - 1
            out += PNGChunks.chunk("PLTE", Data((0..<entries * 3).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }))
            if layout.transparency { out += PNGChunks.chunk("tRNS", Data((0..<max(1, entries / 2)).map { UInt8(truncatingIfNeeded: $0 &* 53) })) }
        } else if layout.transparency {
            let values: [UInt16] = layout.colorType == 2 ? [0x1234, 0x0056, 0x0078] : [0x0042 & UInt16((1 << Int(layout.depth)) - 1)]
            out += PNGChunks.chunk("tRNS", Data(values.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
        }
        var offset = 0
        repeat {
            let end = min(idat.count, offset + idatSize)
            out += PNGChunks.chunk("IDAT", idat.subdata(in: offset..<end))
            offset = end
        } while offset < idat.count
        return out + PNGChunks.chunk("IEND", Data())
    }

    /// An Adam7 RGBA8 stream of random pixels (every row unfiltered), and the bitmap it holds.
    static func adam7(width: Int, height: Int, seed: UInt64, droppingLastRow: Bool = false) -> (Data, Bitmap) {
        var generator = SplitMix64(seed: seed)
        let pixels = (0..<(width * height * 4)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var rows: [Data] = []
        for (x0, y0, dx, dy) in passes where x0 < width && y0 < height {
            for y in stride(from: y0, to: height, by: dy) {
                var row = Data([0])
                for x in stride(from: x0, to: width, by: dx) { row.append(contentsOf: pixels[((y * width + x) * 4)..<((y * width + x) * 4 + 4)]) }
                rows.append(row)
            }
        }
        if droppingLastRow { rows.removeLast() }
        let idat = zlib(rows.reduce(Data(), +))
        var data = png(Layout(colorType: 6, depth: 8), width: width, height: height, idat: idat)
        data[28] = 1  // IHDR's interlace method
        let ihdr = data[12..<29]
        withUnsafeBytes(of: PNGChunks.crc32(Data(ihdr)).bigEndian) { data.replaceSubrange(29..<33, with: $0) }
        return (data, Bitmap(width: width, height: height, pixels: pixels))
    }

    static func zlib(_ body: Data) -> Data {
        var length = compressBound(uLong(body.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = body.withUnsafeBytes { raw in
            compress2(&out, &length, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), uLong(body.count), 6)
        }
        precondition(status == Z_OK)
        return Data(out.prefix(Int(length)))
    }

    /// Where the first chunk of `type` ends (just past its CRC).
    static func chunkEnd(_ type: String, in data: Data) -> Int? {
        var offset = 8
        while offset + 12 <= data.count {
            let length = data[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let name = String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self)
            offset += 12 + length
            if name == type { return offset }
        }
        return nil
    }
}
