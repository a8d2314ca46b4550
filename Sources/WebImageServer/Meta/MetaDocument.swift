import Foundation
import WebImage

/// thumbor's `meta/` answer (its JSON engine's): the source, the operations the variant is made
/// by, the target size and the focal points — and, beyond thumbor, the variant's ``BlurHash`` so a
/// page can paint a placeholder from the JSON alone.
struct MetaDocument: Encodable {
    struct Source: Encodable {
        var url: String
        var width: Int
        var height: Int
        var frameCount: Int
    }

    /// One step, as thumbor's JSON engine records it: `crop` (left, top, right, bottom, in the
    /// source's pixels), `resize` (width, height), `flip_horizontally`, `flip_vertically`.
    struct Operation: Encodable, Equatable {
        var type: String
        var left: Int?, top: Int?, right: Int?, bottom: Int?
        var width: Int?, height: Int?

        static func crop(_ rect: PixelRect) -> Self {
            Self(type: "crop", left: rect.x, top: rect.y, right: rect.x + rect.width, bottom: rect.y + rect.height)
        }

        static func resize(_ size: PixelSize) -> Self { Self(type: "resize", width: size.width, height: size.height) }
    }

    struct Size: Encodable {
        var width: Int
        var height: Int
    }

    /// thumbor's `FocalPoint.to_dict()`: centre, weight (`z`), box and where it came from.
    struct FocalPoint: Encodable, Equatable {
        var x: Double, y: Double, z: Double
        var width: Double, height: Double
        var origin: String

        init(_ point: WebImageServer.FocalPoint) {
            (x, y, z, width, height, origin) = (point.x, point.y, point.weight, point.width, point.height, point.origin.rawValue)
        }
    }

    struct Body: Encodable {
        var source: Source
        var operations: [Operation]
        var target: Size
        var focal_points: [FocalPoint]
        var blurhash: String?
    }

    var thumbor: Body

    /// The document as served: JSON, keys sorted so equal documents are equal bytes (one ETag).
    var result: CachedResult {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return CachedResult(data: data, contentType: "application/json", etag: VariantMaker.etag(data), variesByAccept: false)
    }
}

extension ThumborProcessor {
    /// The geometry's steps on a source of `size`, as thumbor's JSON engine lists them: the crop
    /// (manual and automatic, the latter placed by `focalPoints` as the variant's was), the resize, the flips.
    func metaOperations(forSource size: PixelSize, focalPoints: [WebImageServer.FocalPoint] = []) -> [MetaDocument.Operation] {
        let geometry = geometry(forSource: size, focalPoints: focalPoints)
        var operations: [MetaDocument.Operation] = []
        if geometry.region != PixelRect(x: 0, y: 0, width: size.width, height: size.height) { operations.append(.crop(geometry.region)) }
        if geometry.size != PixelSize(width: geometry.region.width, height: geometry.region.height) { operations.append(.resize(geometry.size)) }
        if path.flipHorizontally { operations.append(MetaDocument.Operation(type: "flip_horizontally")) }
        if path.flipVertically { operations.append(MetaDocument.Operation(type: "flip_vertically")) }
        return operations
    }

    /// The `meta/` document of `variant`, made from a source of `source` pixels (upright) and
    /// `frames` frames with the detected points `detected` (in the source's pixels, as the variant used them).
    func metaDocument(of variant: Image, source: PixelSize, frames: Int, detected: [WebImageServer.FocalPoint] = []) -> MetaDocument {
        MetaDocument(thumbor: MetaDocument.Body(
            source: MetaDocument.Source(url: path.source, width: source.width, height: source.height, frameCount: frames),
            operations: metaOperations(forSource: source, focalPoints: detected),
            target: MetaDocument.Size(width: variant.pixelSize.width, height: variant.pixelSize.height),
            focal_points: focalPoints(detected: detected, sourceSize: source).map(MetaDocument.FocalPoint.init), blurhash: Self.placeholderHash(of: variant)))
    }

    /// The side a variant is scaled down to before hashing: a BlurHash keeps 4×3 cosines, which a
    /// 64-px copy holds as well as the full image, at a fraction of the cost.
    static let blurHashSide = 64

    static func placeholderHash(of image: Image) -> String? {
        var image = image
        let size = image.pixelSize
        if max(size.width, size.height) > blurHashSide {
            let scale = Double(blurHashSide) / Double(max(size.width, size.height))
            let small = PixelSize(width: max(1, Int((Double(size.width) * scale).rounded())), height: max(1, Int((Double(size.height) * scale).rounded())))
            image = ResizingTransformer(size: small, scaleMode: .fill).transform(image, forKey: "") ?? image
        }
        return BlurHash.encode(image.bitmap)
    }
}
