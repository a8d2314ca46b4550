/// The stages of making one variant, each timed into `webimage_variant_stage_seconds` by the
/// source's format: where a cold request's time goes, from the server's own metrics.
enum VariantStage: String, Sendable, CaseIterable {
    /// The source's bytes, from the source cache or the origin (stored before it is used).
    case fetch
    /// The source's header read and the variant planned (limits and costs), before any pixel.
    case header
    /// The source decoded, at the smallest size the variant needs.
    case decode
    /// Geometry and filters: the resize, crops, flips and pixel filters.
    case transform
    /// The variant encoded (every attempt of a `max_bytes` search).
    case encode
    /// The variant written to the result cache.
    case store
}

/// Records how long a stage of one variant took; called once per stage that finished.
typealias VariantStageRecorder = @Sendable (VariantStage, Duration) -> Void
