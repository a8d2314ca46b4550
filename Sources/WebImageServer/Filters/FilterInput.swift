import WebImage

/// What a pixels filter's transformer is made from: its parsed arguments, the image as it is when
/// the filter runs, and the request around it (`fill` pads to its box).
struct FilterInput: Sendable {
    let values: [FilterValue]
    /// The image's upright size when the filter runs (after the resize and the filters before it).
    let size: PixelSize
    let path: ThumborPath
    /// The decoded images `watermark` and `frame` draw, by their URL as written; empty when
    /// planning, so a row's size and cost never depend on them.
    var overlays: [String: Image] = [:]
    /// Those images' upright sizes from their headers, known when planning too: a step whose size
    /// depends on one (`frame`) plans its largest.
    var overlaySizes: [String: PixelSize] = [:]
    /// The pipeline's detector (its cascade directory, library and time budget), for `red_eye`.
    var detector: SmartDetector? = nil
}
