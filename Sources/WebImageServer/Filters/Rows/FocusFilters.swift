import WebImage

extension FilterTable {
    /// Filters about where the picture's subject is: focal points and what detection finds.
    static let focusRows: [FilterRow] = [
        FilterRow("focal", [.string], kind: .geometry,
                  summary: "a focal point `LxT:RxB` (source pixels): the default-mode crop centres on the focal points' weighted centre",
                  action: .geometry),
        FilterRow("extract_focal", [.string], required: 0, kind: .geometry,
                  summary: "when the source is a thumbor URL with a crop box, load its image and take the box as a focal point",
                  action: .geometry),
        FilterRow("red_eye", kind: .pixels, cost: RedEyeTransformer.cost,
                  costFor: { RedEyeTransformer.cost(for: $0.size, timeBudget: RedEyeTransformer(detector: $0.detector).timeBudget) },
                  oncePerURL: true,
                  summary: "with `smart`: red pupils inside eyes (Haar cascade) inside faces turned grey; once a URL",
                  action: .pixels { input in input.path.smart ? (RedEyeTransformer(detector: input.detector), input.size) : nil }),
    ]
}
