import WebImage

/// thumbor's `fill(color|auto|blur|transparent[,fill_transparent])`: a background of the request's
/// box — one colour, the image's mean colour (`auto`, which thumbor calls its median), or the image
/// itself blurred and stretched over the box (`blur`) — with the image centred on it. The image
/// replaces what it covers (its transparent pixels stay transparent) unless `fillTransparent`,
/// when it is merged over the background so its transparency takes the fill.
struct FillTransformer: ImageTransformer {
    enum Background: Sendable, Hashable {
        case color(RGBA)
        case mean
        case blur
    }

    let background: Background
    /// The box the image is centred in.
    let box: PixelSize
    let fillTransparent: Bool

    var transformerKey: String { "FillTransformer(\(background),\(box.width)x\(box.height),\(fillTransparent))" }

    /// thumbor blurs with radius 50 and sigma 50: a Gaussian cut at one sigma, whose spread is this.
    static let blurSigma = 27.0
    /// The blurred background is made at a fraction of the image's size: it is stretched smooth anyway.
    static let blurWorkingSigma = 4.0

    func transform(_ image: Image, forKey key: String) -> Image? {
        guard !box.isEmpty else { return nil }
        // thumbor reads the one colour once; every frame of an animation takes the same.
        let mean = background == .mean ? Self.meanColor(image.bitmap) : nil
        return image.transformingUprightFrames { bitmap in
            var canvas: ThumborCompositing.Canvas
            switch background {
            case .color(let color): canvas = ThumborCompositing.Canvas(size: box, color: color)
            case .mean: canvas = ThumborCompositing.Canvas(size: box, color: mean ?? RGBA(r: 0, g: 0, b: 0))
            case .blur: canvas = ThumborCompositing.Canvas(Self.blurredBackground(bitmap, box: box))
            }
            let x = ThumborCompositing.floorDivide(box.width - bitmap.width, 2)
            let y = ThumborCompositing.floorDivide(box.height - bitmap.height, 2)
            if fillTransparent {
                canvas.merge(bitmap, at: x, y)
            } else {
                canvas.paste(bitmap, at: x, y)
            }
            return canvas.bitmap
        }
    }

    /// `_fill.c`: the mean of every pixel's red, green and blue (transparent ones too), truncated.
    static func meanColor(_ bitmap: Bitmap) -> RGBA {
        let count = bitmap.width * bitmap.height
        guard count > 0 else { return RGBA(r: 0, g: 0, b: 0) }
        var (r, g, b) = (0, 0, 0)
        bitmap.pixels.withUnsafeBufferPointer { p in
            var index = 0
            while index < p.count {
                r += Int(p[index]); g += Int(p[index + 1]); b += Int(p[index + 2])
                index += 4
            }
        }
        return RGBA(r: UInt8(r / count), g: UInt8(g / count), b: UInt8(b / count))
    }

    /// The image blurred as thumbor's `fill(blur)` blurs it, stretched to `box`: blurred at a
    /// reduced size (the same blur in the image's pixels), then scaled up.
    static func blurredBackground(_ bitmap: Bitmap, box: PixelSize) -> Bitmap {
        let factor = max(1, Int(blurSigma / blurWorkingSigma))
        let small = PixelSize(width: max(1, bitmap.width / factor), height: max(1, bitmap.height / factor))
        let shrunk = small == bitmap.size ? bitmap : bitmap.resampled(to: small)
        let scale = Double(small.width) / Double(max(1, bitmap.width))
        return shrunk.blurred(radius: blurSigma * scale).resampled(to: box)
    }
}

extension FillTransformer {
    /// The box thumbor pads to: the request's width and height (a side of 0, or `orig`, is the
    /// image's own), and in `fit-in` never less than the image (thumbor stores the resized size
    /// back into the request when it is larger, as `full-fit-in`'s is). Default mode makes the
    /// image the request's size already: the box is the image.
    static func box(for path: ThumborPath, image size: PixelSize) -> PixelSize {
        guard let fit = path.fitIn else { return size }
        func requested(_ dimension: ThumborPath.Dimension, _ own: Int) -> Int {
            if case .pixels(let value) = dimension, value > 0 { value } else { own }
        }
        var width = requested(path.width, size.width), height = requested(path.height, size.height)
        if fit == .adaptive || fit == .adaptiveFull,
           (size.width < size.height && width > height) || (size.width > size.height && width < height) {
            swap(&width, &height)
        }
        return PixelSize(width: max(width, size.width), height: max(height, size.height))
    }
}
