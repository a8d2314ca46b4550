/// Opts one load out of the manager's default transformer (``ImageManager/Settings/transformer``),
/// as SDWebImage's `NSNull` in the context's `imageTransformer` does: with
/// `WebImageContext(imageTransformer: NoTransformer())` the manager transforms nothing and adds no
/// suffix to the cache key. Anywhere else (inside a ``PipelineTransformer``) it passes the image through.
public struct NoTransformer: ImageTransformer {
    public init() {}

    public var transformerKey: String { "" }

    public func transform(_ image: Image, forKey key: String) -> Image? { image }
}
