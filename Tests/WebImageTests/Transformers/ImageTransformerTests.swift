import Foundation
import Testing
@testable import WebImage

@Suite("ImageTransformer on animated images")
struct ImageTransformerTests {
    private let frames = (0..<3).map { i in
        ImageFrame(bitmap: TransformerFixtures.numbered(width: 3, height: 2).tinted(
            with: RGBA(r: UInt8(i * 100), g: 0, b: 0), blendMode: .sourceIn), duration: 0.1 * Double(i + 1))
    }

    @Test func everyFrameIsTransformedAndTheTimingKept() throws {
        let animation = Image(frames: frames, loopCount: 2, scale: 2, format: .gif, originalData: Data([0x47]))
        let transformers: [any ImageTransformer] = [
            FlippingTransformer(horizontal: true, vertical: false),
            ResizingTransformer(size: PixelSize(width: 6, height: 4)),
            RotationTransformer(angle: .pi / 2, fitSize: true),
            BlurTransformer(radius: 1),
            PipelineTransformer([CroppingTransformer(rect: PixelRect(x: 0, y: 0, width: 2, height: 2)),
                                 RoundCornerTransformer(cornerRadius: 1)]),
        ]
        for transformer in transformers {
            let out = try #require(transformer.transform(animation, forKey: "k"), "\(transformer.transformerKey)")
            #expect(out.frames.count == 3)
            #expect(out.frames.map(\.duration) == frames.map(\.duration))
            #expect(out.loopCount == 2 && out.scale == 2 && out.format == .gif && out.originalData == nil)
            for (index, frame) in out.frames.enumerated() {
                let single = try #require(transformer.transform(Image(bitmap: frames[index].bitmap), forKey: "k"))
                #expect(frame.bitmap == single.bitmap, "\(transformer.transformerKey) frame \(index)")
            }
        }
    }

    @Test func framesSharingPixelsStillShareThem() throws {
        let shared = frames[0].bitmap
        let animation = Image(frames: [ImageFrame(bitmap: shared, duration: 0.1), ImageFrame(bitmap: shared, duration: 0.1),
                                       frames[1]])
        let out = try #require(FlippingTransformer(horizontal: true, vertical: true).transform(animation, forKey: "k"))
        #expect(out.cost == 2 * 3 * 2 * 4)
    }
}
