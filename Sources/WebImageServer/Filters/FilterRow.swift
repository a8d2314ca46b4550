import WebImage

/// One thumbor filter: its name, its arguments' grammar, what kind of work it is, what it does and
/// what it costs. ``FilterTable`` holds every row; the processor, the cost plan and the help text
/// read them, so a filter is described once.
public struct FilterRow: Sendable {
    /// When in the pipeline a filter acts.
    public enum Kind: String, Sendable, CaseIterable {
        /// Changes how the variant is written (format, quality, byte limit).
        case encoder
        /// Changes the geometry (read by `ThumborGeometry`).
        case geometry
        /// Changes pixels after the resize, in the order given.
        case pixels
    }

    /// What the filter does once its arguments are parsed.
    enum Action: Sendable {
        /// Sets the encoder's settings; false when the values cannot be honoured (a 400).
        case output(@Sendable (inout ThumborProcessor.Output, [FilterValue]) -> Bool)
        /// Read from the path by the geometry; nothing to run.
        case geometry
        /// The transformer for an image of the given size and the size it makes; nil = nothing to do.
        case pixels(@Sendable (FilterInput) -> (any ImageTransformer, PixelSize)?)
        /// Accepted and always true of WebImage's output (`strip_icc`: the encoders write no profile).
        case holds
        /// A thumbor filter WebImage does not do, and why: ignored with a log line, as an unknown one is.
        case leftOut(because: String)
    }

    public let name: String
    /// The grammar of each argument, in order; the first ``requiredArguments`` must be given.
    public let arguments: [FilterArgument]
    public let requiredArguments: Int
    public let kind: Kind
    /// What it costs; for a filter whose cost grows with its arguments (convolution's kernel),
    /// what it costs at most — `cost(for:)` is what the plan and the work count.
    public let cost: FilterCost
    /// The cost for parsed arguments on the image it runs on, when it depends on them.
    let costForInput: (@Sendable (FilterInput) -> FilterCost)?
    /// One line for the help text and the README's table.
    public let summary: String
    let action: Action
    /// Applied at most once a URL, its repeats ignored (work thumbor would do twice for nothing).
    let oncePerURL: Bool

    init(_ name: String, _ arguments: [FilterArgument] = [], required: Int? = nil, kind: Kind, cost: FilterCost = .none,
         costFor costForInput: (@Sendable (FilterInput) -> FilterCost)? = nil, oncePerURL: Bool = false, summary: String, action: Action) {
        self.oncePerURL = oncePerURL
        self.name = name
        self.arguments = arguments
        requiredArguments = required ?? arguments.count
        self.kind = kind
        self.cost = cost
        self.costForInput = costForInput
        self.summary = summary
        self.action = action
    }

    /// What this filter costs with these arguments on this image (its ``cost`` unless it depends on them).
    func cost(for input: FilterInput) -> FilterCost {
        costForInput?(input) ?? cost
    }

    /// `filter`'s arguments parsed by this row's grammar, or nil when they do not match it (too
    /// few, too many, or one of the wrong form).
    func values(of filter: ThumborFilter) -> [FilterValue]? {
        guard (requiredArguments...arguments.count).contains(filter.arguments.count) else { return nil }
        var values: [FilterValue] = []
        for (grammar, text) in zip(arguments, filter.arguments) {
            guard let value = grammar.parse(text) else { return nil }
            values.append(value)
        }
        return values
    }
}

/// What a filter costs on an image of a given size, added up by the cost plan before any work.
public struct FilterCost: Sendable, Hashable {
    /// Bytes per pixel it allocates besides its result, alive while it runs on one frame.
    public var scratchBytesPerPixel: Int
    /// Whether it makes a new bitmap (4 bytes per pixel of every frame) beside its input.
    public var makesBitmap: Bool
    /// Passes over the pixels: its CPU cost relative to a copy.
    public var passes: Int
    /// Passes over one frame's pixels made once whatever the frame count (a detection on the first frame).
    public var passesOnce: Int

    public init(scratchBytesPerPixel: Int = 0, makesBitmap: Bool, passes: Int, passesOnce: Int = 0) {
        self.scratchBytesPerPixel = scratchBytesPerPixel
        self.makesBitmap = makesBitmap
        self.passes = passes
        self.passesOnce = passesOnce
    }

    public static let none = FilterCost(makesBitmap: false, passes: 0)
    /// A filter that writes every pixel once into a new bitmap.
    public static let copy = FilterCost(makesBitmap: true, passes: 1)

    /// Its CPU work on `frames` frames of `size`: passes × pixels, and ``passesOnce`` × one frame's pixels.
    public func pixelPasses(for size: PixelSize, frames: Int) -> Int {
        let pixels = CostPlan.bitmapBytes(size, frames: frames) / 4
        let (work, overflow) = pixels.multipliedReportingOverflow(by: passes)
        let (once, overflowed) = (CostPlan.bitmapBytes(size, frames: 1) / 4).multipliedReportingOverflow(by: passesOnce)
        return overflow || overflowed ? .max : CostPlan.sum(work, once)
    }

    /// Peak bytes while it runs on `frames` frames of `size`, its input not counted.
    public func bytes(for size: PixelSize, frames: Int) -> Int {
        let pixels = size.width.multipliedReportingOverflow(by: size.height)
        guard !pixels.overflow else { return .max }
        let scratch = pixels.partialValue.multipliedReportingOverflow(by: scratchBytesPerPixel)
        let output = makesBitmap ? pixels.partialValue.multipliedReportingOverflow(by: 4 * max(1, frames)) : (partialValue: 0, overflow: false)
        guard !scratch.overflow, !output.overflow else { return .max }
        let total = scratch.partialValue.addingReportingOverflow(output.partialValue)
        return total.overflow ? .max : total.partialValue
    }
}
