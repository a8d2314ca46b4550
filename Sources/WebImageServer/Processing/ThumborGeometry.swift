import WebImage

/// Where a thumbor request's pixels come from and what size they end up, worked out on sizes
/// alone (before any pixel is touched) — thumbor's rules:
/// - the crop box `AxB:CxD` is cut first (clamped to the image; an empty box is ignored);
/// - a side of 0 follows the other's ratio, `orig` is the source's side, both 0 = the source size;
/// - default mode fills the box and crops what sticks out, centred on the focal points' weighted
///   centre (``focus``: detected by `smart`, or given by `focal()`) within the region, else placed
///   by halign/valign;
/// - `fit-in` fits inside the box and never enlarges (unless `upscale()`); `full-fit-in` makes the
///   smaller side fit (the other may stick out, nothing is cropped); `adaptive-` swaps the box's
///   sides when that suits the image's orientation better;
/// - `no_upscale()` keeps default mode from enlarging.
/// - `stretch()` makes default mode scale the region to the box without cropping (aspect not kept).
struct ThumborGeometry: Equatable {
    /// The region of the upright source to use.
    var region: PixelRect
    /// The size that region is scaled to.
    var size: PixelSize

    /// `focus` is the focal points' centre of mass in the region's pixels (after the crop box).
    init(source: PixelSize, path: ThumborPath, upscale: Bool, noUpscale: Bool, focus: (x: Double, y: Double)? = nil) {
        var region = PixelRect(x: 0, y: 0, width: source.width, height: source.height)
        if let crop = path.crop {
            let left = max(0, min(crop.left, source.width)), top = max(0, min(crop.top, source.height))
            let right = max(left, min(crop.right, source.width)), bottom = max(top, min(crop.bottom, source.height))
            if right > left, bottom > top { region = PixelRect(x: left, y: top, width: right - left, height: bottom - top) }
        }
        let (w, h) = (Double(region.width), Double(region.height))
        func side(_ dimension: ThumborPath.Dimension, original: Int) -> Double {
            switch dimension {
            case .original: Double(original)
            case .pixels(let value): Double(value)
            }
        }
        var boxWidth = side(path.width, original: region.width)
        var boxHeight = side(path.height, original: region.height)
        if boxWidth == 0, boxHeight == 0 { (boxWidth, boxHeight) = (w, h) }

        switch path.fitIn {
        case .some(let fit):
            if fit == .adaptive || fit == .adaptiveFull, boxWidth > 0, boxHeight > 0, (boxWidth > boxHeight) != (w > h) {
                swap(&boxWidth, &boxHeight)
            }
            let scales = [boxWidth > 0 ? boxWidth / w : nil, boxHeight > 0 ? boxHeight / h : nil].compactMap { $0 }
            var scale = fit == .full || fit == .adaptiveFull ? scales.max()! : scales.min()!
            if !upscale { scale = min(scale, 1) }
            self.region = region
            self.size = PixelSize(width: max(1, Int((w * scale).rounded())), height: max(1, Int((h * scale).rounded())))
        case nil:
            if boxWidth == 0 { boxWidth = (w * boxHeight / h).rounded() }
            if boxHeight == 0 { boxHeight = (h * boxWidth / w).rounded() }
            if noUpscale, boxWidth > w || boxHeight > h {
                // Never enlarge: shrink the box by the factor that keeps it inside the source.
                let shrink = min(w / boxWidth, h / boxHeight)
                (boxWidth, boxHeight) = ((boxWidth * shrink).rounded(), (boxHeight * shrink).rounded())
            }
            let target = PixelSize(width: max(1, Int(boxWidth)), height: max(1, Int(boxHeight)))
            // `stretch()` skips thumbor's auto-crop: the whole region is scaled to the box, aspect not kept.
            if path.filters.contains(where: { $0.name == "stretch" && $0.arguments.isEmpty }) {
                (self.region, self.size) = (region, target)
                return
            }
            // The largest part of the region with the box's aspect, placed by the alignment.
            let scale = max(Double(target.width) / w, Double(target.height) / h)
            let used = PixelSize(width: min(region.width, max(1, Int((Double(target.width) / scale).rounded()))),
                                 height: min(region.height, max(1, Int((Double(target.height) / scale).rounded()))))
            let spareX = region.width - used.width, spareY = region.height - used.height
            var x = switch path.horizontalAlign { case .left: 0; case .center: spareX / 2; case .right: spareX }
            var y = switch path.verticalAlign { case .top: 0; case .middle: spareY / 2; case .bottom: spareY }
            if let focus {
                // thumbor's auto_crop: the box centred on the focus, kept inside the region.
                func place(_ centre: Double, _ side: Int, _ spare: Int) -> Int {
                    let start = min(max(centre - Double(side) / 2, 0), Double(spare)).rounded(.toNearestOrEven)
                    return start.isFinite ? Int(start) : spare / 2
                }
                x = place(focus.x, used.width, spareX)
                y = place(focus.y, used.height, spareY)
            }
            self.region = PixelRect(x: region.x + x, y: region.y + y, width: used.width, height: used.height)
            self.size = target
        }
    }
}
