import Foundation
import Testing
@testable import WebImage

/// Every input the fuzzers (scripts/fuzz) found a bug with, kept in Fixtures/fuzz and replayed the
/// way the fuzz targets run them: whole through each coder with each option set the harness picks,
/// through the manager, and in chunks through the incremental decoders. The promise under test is
/// the one the targets check: a decoded image or an ImageCoderError, never a trap, a hang or
/// another error type. Findings with a precise expected outcome have their own tests below.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let directory = Fixtures.directory.appendingPathComponent("fuzz")

    static var inputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    /// The option sets Fuzz/Support/FuzzSupport.swift chooses between (by input length there).
    static let optionSets: [ImageDecodeOptions] = {
        let base = ImageDecodeOptions(maxPixelCount: 1 << 22, maxAnimationBytes: 64 << 20)
        var thumbnail = base
        thumbnail.thumbnailPixelSize = PixelSize(width: 37, height: 23)
        var firstFrame = base
        firstFrame.decodeFirstFrameOnly = true
        var stretched = base
        stretched.thumbnailPixelSize = PixelSize(width: 64, height: 64)
        stretched.preserveAspectRatio = false
        stretched.scaleDownLimitBytes = 16 << 10
        return [base, thumbnail, firstFrame, stretched]
    }()

    static let coders: [any ImageCoder] = [JPEGCoder(), PNGCoder(), GIFCoder(), WebPCoder(), ImageCodersManager()]

    @Test("the fuzz findings are there to replay (a missing folder would turn the replay into zero cases)")
    func inputsExist() throws {
        try #require(FileManager.default.fileExists(atPath: Self.directory.path), "Fixtures/fuzz is missing")
        try #require(!Self.inputs.isEmpty, "Fixtures/fuzz is empty")
    }

    @Test("replays without a crash", arguments: inputs)
    func replays(name: String) throws {
        let whole = try Data(contentsOf: Self.directory.appendingPathComponent(name))
        // As a slice too (startIndex ≠ 0), as the harness hands over half of its inputs.
        for data in [whole, (Data([0xA5]) + whole).dropFirst()] {
            for options in Self.optionSets {
                for coder in Self.coders where coder.canDecode(data) {
                    expectTypedOutcome("\(type(of: coder)) decode") { _ = try coder.decode(data, options: options) }
                    if let progressive = coder as? any ProgressiveImageCoder {
                        feedInChunks(data, to: progressive.makeIncrementalDecoder(options: options))
                    }
                }
            }
        }
    }

    /// Every prefix a download could deliver (in steps, to stay quick), then the whole file.
    private func feedInChunks(_ data: Data, to decoder: any IncrementalImageDecoder) {
        let step = max(1, data.count / 64)
        for end in stride(from: 1, to: data.count, by: step) {
            decoder.update(data.prefix(end), isFinal: false)
            expectTypedOutcome("partial decode at \(end)") { _ = try decoder.decodedImage() }
        }
        decoder.update(data, isFinal: true)
        expectTypedOutcome("final decode") { _ = try decoder.decodedImage() }
    }

    private func expectTypedOutcome(_ what: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch is ImageCoderError {
        } catch {
            Issue.record("\(what) threw \(type(of: error)), not an ImageCoderError: \(error)")
        }
    }
}
