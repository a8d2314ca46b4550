import Foundation
import WebImage

/// An image a filter draws (`watermark`, `frame`), its header checked and its decode planned.
struct PlannedOverlay: Sendable {
    let data: Data
    let header: ImageHeader
    /// First frame only, held to the source limits and to its own planned bytes.
    let options: ImageDecodeOptions
}

extension VariantMaker {
    /// Reads every overlay's header and plans its decode, as the main source's is: over the
    /// source pixel limit is a 413 before any pixel exists, and its bytes join the ``CostPlan``.
    func planOverlays(_ overlays: [String: Data]) throws(ServerFailure) -> (planned: [String: PlannedOverlay], cost: CostPlan.Overlays) {
        var planned: [String: PlannedOverlay] = [:]
        var cost = CostPlan.Overlays()
        var largestDecode = 0
        for (url, data) in overlays {
            let header: ImageHeader
            do { header = try coders.header(of: data) } catch { throw ServerFailure(decoding: error) }
            let stored = header.pixelSize
            if stored.width.multipliedReportingOverflow(by: stored.height).overflow || stored.pixelCount > limits.sourcePixels {
                throw .tooLarge
            }
            var options = ImageDecodeOptions(decodeFirstFrameOnly: true, maxPixelCount: limits.sourcePixels,
                                             maxAnimationBytes: limits.animationBytes)
            options.maxProgressiveScans = limits.progressiveScans
            let bitmap = CostPlan.bitmapBytes(stored, frames: 1)
            // Turning it upright makes a second bitmap for a moment.
            let decode = CostPlan.sum(coders.decodingCost(of: header, options: options), header.orientation == .up ? 0 : bitmap)
            options.maxDecodeBytes = decode
            // Kept: its bitmap, and what scaling part of it takes (a box-shrunk copy, float rows).
            let held = CostPlan.sum(bitmap, bitmap / 4, stored.width.multipliedReportingOverflow(by: 64).partialValue)
            cost.encodedBytes = CostPlan.sum(cost.encodedBytes, data.count)
            cost.heldBytes = CostPlan.sum(cost.heldBytes, held)
            largestDecode = max(largestDecode, decode)
            planned[url] = PlannedOverlay(data: data, header: header, options: options)
            cost.sizes[url] = header.uprightSize
        }
        // Decoded one after another: the ones before are held while the next decodes.
        cost.decodeBytes = overlays.isEmpty ? 0 : CostPlan.sum(cost.heldBytes, largestDecode)
        return (planned, cost)
    }

    /// The overlays decoded (first frame, upright) on the decoding queue, before the source, each
    /// held to its planned bytes; stops once `cancellation` is raised.
    func decodeOverlays(_ overlays: [String: PlannedOverlay], cancellation: WorkCancellation) async throws -> [String: Image] {
        guard !overlays.isEmpty else { return [:] }
        let coders = self.coders
        let decoded: Result<[String: Image], any Error> = await cancellation.run {
            await ImageWorkQueue.decoding.run {
                var images: [String: Image] = [:]
                do {
                    for (url, overlay) in overlays {
                        try cancellation.check()
                        let image = try coders.decode(overlay.data, options: overlay.options)
                        let bitmap = image.orientation == .up ? image.bitmap : image.bitmap.oriented(image.orientation)
                        images[url] = Image(frames: [ImageFrame(bitmap: bitmap)], format: image.format)
                    }
                    return .success(images)
                } catch is CancellationError {
                    return .failure(CancellationError())
                } catch {
                    return .failure(ServerFailure(decoding: error))
                }
            }
        }
        return try decoded.get()
    }
}
