/// Several transformers applied in order, SDWebImage's `SDImagePipelineTransformer`.
///
/// Its key joins the members' keys with "-" (empty for no members), so `flip |> rotate` and
/// `rotate |> flip` cache apart. The chain stops at the first member that returns nil.
public struct PipelineTransformer: ImageTransformer {
    public let transformers: [any ImageTransformer]

    public init(_ transformers: [any ImageTransformer]) {
        self.transformers = transformers
    }

    public var transformerKey: String {
        transformers.map(\.transformerKey).joined(separator: TransformedCacheKeys.separator)
    }

    /// Each member gets the previous one's output and the same `key`.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        var current = image
        for transformer in transformers {
            guard let next = transformer.transform(current, forKey: key) else { return nil }
            current = next
        }
        return current
    }
}
