import WebImage

/// thumbor's `noise(amount[,seed])` (`ext/filters/_noise.c`): one random offset per pixel,
/// `random() % amount − amount / 2`, added to its three colour channels, then clamped.
///
/// thumbor draws from the process's random state unless a seed is given; here no seed means seed 1
/// (what a fresh process's state is), so one URL always makes the same bytes and its cached
/// variant stays true. Each frame of an animation starts from the seed.
struct NoiseTransformer: ImageTransformer {
    /// Above 0 (thumbor leaves the image alone at 0).
    let amount: Int
    let seed: UInt32

    var transformerKey: String { "Noise(\(amount),\(seed))" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        let (amount, seed) = (amount, seed)
        guard amount > 0 else { return image }
        return image.rewritingPixels { pixels, _, _ in
            var random = GlibcRandom(seed: seed)
            var i = 0
            while i + 3 < pixels.count {
                let offset = random.next() % amount - (amount >> 1)
                pixels[i] = clampedChannel(Int(pixels[i]) + offset)
                pixels[i + 1] = clampedChannel(Int(pixels[i + 1]) + offset)
                pixels[i + 2] = clampedChannel(Int(pixels[i + 2]) + offset)
                i += 4
            }
        }
    }
}
