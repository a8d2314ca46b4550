/// Post-decode processing of an image, SDWebImage's `SDImageTransformer`: the manager runs it after a
/// load and caches its output under a key that carries ``transformerKey``.
///
/// A transformer is a value (or an immutable object) that may be used from any thread. It handles
/// every frame of an animated image; whether animations are transformed at all is the manager's
/// decision (SD's `transformAnimatedImage` option). Units are pixels: WebImage has no screen to tie
/// points to, so where SD takes points (sizes, radii) pass points × ``Image/scale``.
public protocol ImageTransformer: Sendable {
    /// Identifies this transformer and its parameters in cache keys: two transformers with the same
    /// key must give the same output for the same input.
    var transformerKey: String { get }

    /// The transformed image, or nil when the transformer cannot apply (an empty crop, say).
    /// `key` is the cache key of the image being transformed, for transformers that want it.
    func transform(_ image: Image, forKey key: String) -> Image?
}

extension ImageTransformer {
    /// The cache key for this transformer's output of the image stored under `key`
    /// (see ``TransformedCacheKeys/transformedKey(for:transformerKey:)``).
    public func cacheKey(for key: String) -> String {
        TransformedCacheKeys.transformedKey(for: key, transformerKey: transformerKey)
    }
}

extension Image {
    /// This image with `body` applied to every frame: durations, loop count, scale and format kept,
    /// `originalData` dropped (the bytes no longer describe these pixels), alpha re-checked.
    ///
    /// Frames that share one pixel buffer (a GIF frame that changes nothing) are transformed once
    /// and keep sharing, so the result costs no more memory than the source. Returns nil when `body`
    /// does for any frame.
    package func transformingFrames(orientation: ImageOrientation? = nil, _ body: (Bitmap) -> Bitmap?) -> Image? {
        guard let frames = mappingFrames(body) else { return nil }
        return Image(
            frames: frames, loopCount: loopCount, scale: scale, orientation: orientation ?? self.orientation,
            format: format, originalData: nil, hasAlpha: nil, isIncremental: isIncremental, colorProfile: colorProfile)
    }

    /// Like ``transformingFrames(orientation:_:)`` for geometric transformers, which work on the image
    /// as displayed: EXIF orientation is applied to the pixels first and the result is `.up` (as SD's
    /// drawing-based transforms return upright images).
    package func transformingUprightFrames(_ body: (Bitmap) -> Bitmap?) -> Image? {
        let orientation = self.orientation
        return transformingFrames(orientation: .up) { bitmap in
            body(orientation == .up ? bitmap : bitmap.oriented(orientation))
        }
    }
}
