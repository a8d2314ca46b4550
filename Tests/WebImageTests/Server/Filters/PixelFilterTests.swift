import Testing
import WebImage
@testable import WebImageServer

/// thumbor's colour filters against thumbor 7.8's own output: the expected pixels below were made
/// by thumbor's C extensions (`thumbor.ext.filters._brightness.apply('RGBA', 40, data)` …) in
/// `.venv-servers`, on the same pixels, and pasted here.
@Suite("thumbor's colour filters, pixel for pixel")
struct PixelFilterTests {
    /// 4×4 straight RGBA: pixel k is ((37k+11) % 256, (91k+50) % 256, (53k+200) % 256), opaque
    /// except every fifth, whose alpha is 17k % 256 (0, 85, 170).
    static let input: [[UInt8]] = (0..<16).map { (k: Int) -> [UInt8] in
        let alpha: Int = k % 5 == 0 ? k * 17 % 256 : 255
        return [(k * 37 + 11) % 256, (k * 91 + 50) % 256, (k * 53 + 200) % 256, alpha].map { UInt8($0) }
    }

    /// 40×40 opaque: red (6x + 2y) % 256, green (x² + 3y) % 256, blue 5-pixel checks of 255 and 20.
    /// Wide enough (≥ 32) that thumbor's wavelet reads no pixel outside the image.
    static let stripes: [[UInt8]] = (0..<1600).map { (i: Int) -> [UInt8] in
        let (x, y) = (i % 40, i / 40)
        let blue: Int = (x / 5 + y / 5) % 2 == 1 ? 255 : 20
        return [(x * 6 + y * 2) % 256, (x * x + y * 3) % 256, blue, 255].map { UInt8($0) }
    }
    static let samples = [(0, 0), (1, 0), (20, 20), (39, 39), (7, 33), (33, 7), (19, 5), (5, 19)]

    // thumbor 7.8's output for `input` (its C filters called directly, mode RGBA; grayscale by Pillow's convert("LA")).
    static let thumbor: [(filter: String, pixels: [[UInt8]])] = [
        ("brightness(40)",
         [[113, 152, 255, 0], [150, 243, 255, 255], [187, 255, 152, 255], [224, 169, 205, 255], [255, 255, 255, 255], [255, 255, 255, 85], [255, 186, 108, 255], [116, 255, 161, 255], [153, 112, 214, 255], [190, 203, 255, 255], [227, 255, 255, 170], [255, 129, 117, 255], [255, 220, 170, 255], [255, 255, 223, 255], [119, 146, 255, 255], [156, 237, 255, 255]]),
        ("brightness(-30)",
         [[0, 0, 124, 0], [0, 65, 177, 255], [9, 156, 0, 255], [46, 0, 27, 255], [83, 82, 80, 255], [120, 173, 133, 85], [157, 8, 0, 255], [0, 99, 0, 255], [0, 0, 36, 255], [12, 25, 89, 255], [49, 116, 142, 170], [86, 0, 0, 255], [123, 42, 0, 255], [160, 133, 45, 255], [0, 0, 98, 255], [0, 59, 151, 255]]),
        ("contrast(50)",
         [[0, 0, 255, 0], [0, 157, 255, 255], [32, 255, 0, 255], [115, 0, 72, 255], [197, 195, 191, 255], [255, 255, 255, 85], [255, 29, 0, 255], [0, 233, 0, 255], [0, 0, 92, 255], [38, 68, 211, 255], [122, 255, 255, 170], [204, 0, 0, 255], [255, 106, 0, 255], [255, 255, 113, 255], [0, 0, 231, 255], [0, 143, 255, 255]]),
        ("contrast(-60)",
         [[110, 116, 139, 0], [116, 130, 148, 255], [122, 144, 116, 255], [128, 119, 124, 255], [132, 132, 132, 255], [138, 147, 140, 85], [144, 121, 109, 255], [110, 135, 117, 255], [116, 110, 126, 255], [122, 124, 133, 255], [128, 138, 142, 170], [133, 112, 110, 255], [139, 127, 119, 255], [145, 140, 127, 255], [111, 115, 135, 255], [117, 129, 143, 255]]),
        ("contrast(-150)",
         [[99, 109, 146, 0], [108, 131, 159, 255], [118, 154, 109, 255], [127, 113, 122, 255], [135, 135, 135, 255], [145, 158, 148, 85], [154, 117, 98, 255], [100, 139, 111, 255], [109, 99, 124, 255], [118, 122, 137, 255], [128, 144, 150, 170], [136, 103, 100, 255], [145, 126, 113, 255], [155, 148, 127, 255], [101, 107, 139, 255], [110, 129, 152, 255]]),
        ("rgb(20,-10,50)",
         [[62, 25, 255, 0], [99, 116, 255, 255], [136, 207, 177, 255], [173, 42, 230, 255], [210, 133, 255, 255], [247, 224, 255, 85], [255, 59, 133, 255], [65, 150, 186, 255], [102, 0, 239, 255], [139, 76, 255, 255], [176, 167, 255, 170], [213, 2, 142, 255], [250, 93, 195, 255], [255, 184, 248, 255], [68, 19, 255, 255], [105, 110, 255, 255]]),
        ("colorize(10,50,100,ff8000)",
         [[35, 89, 0, 0], [68, 134, 0, 255], [102, 180, 0, 255], [135, 97, 0, 255], [168, 143, 0, 255], [201, 188, 0, 85], [235, 106, 0, 255], [38, 151, 0, 255], [71, 69, 0, 255], [104, 114, 0, 255], [138, 160, 0, 170], [171, 77, 0, 255], [204, 123, 0, 255], [237, 168, 0, 255], [40, 86, 0, 255], [74, 131, 0, 255]]),
        ("colorize(150,0,30,'0a0b0c')",
         [[9, 50, 143, 0], [0, 141, 180, 255], [0, 232, 38, 255], [0, 67, 75, 255], [0, 158, 112, 255], [0, 249, 149, 85], [0, 84, 7, 255], [8, 175, 44, 255], [0, 10, 82, 255], [0, 101, 119, 255], [0, 192, 156, 170], [0, 27, 14, 255], [0, 118, 51, 255], [0, 209, 88, 255], [6, 44, 125, 255], [0, 135, 162, 255]]),
        ("equalize()",
         [[15, 63, 187, 0], [63, 159, 255, 255], [111, 239, 34, 255], [143, 79, 85, 255], [175, 175, 136, 255], [207, 255, 204, 85], [239, 95, 0, 255], [31, 191, 51, 255], [79, 15, 102, 255], [127, 111, 153, 255], [159, 207, 221, 170], [191, 31, 17, 255], [223, 127, 68, 255], [255, 223, 119, 255], [47, 47, 170, 255], [95, 143, 238, 255]]),
        ("noise(40,7)",
         [[28, 67, 217, 0], [47, 140, 252, 255], [84, 231, 49, 255], [133, 78, 114, 255], [144, 143, 141, 255], [179, 232, 192, 85], [239, 90, 12, 255], [11, 172, 56, 255], [31, 0, 92, 255], [101, 114, 178, 255], [140, 207, 233, 170], [143, 8, 0, 255], [190, 109, 59, 255], [222, 195, 107, 255], [22, 49, 179, 255], [34, 115, 207, 255]]),
        ("noise(30)",
         [[9, 48, 198, 0], [49, 142, 254, 255], [97, 244, 62, 255], [132, 77, 113, 255], [167, 166, 164, 255], [206, 255, 219, 85], [234, 85, 7, 255], [11, 172, 56, 255], [45, 4, 106, 255], [74, 87, 151, 255], [112, 179, 205, 170], [154, 19, 7, 255], [204, 123, 73, 255], [240, 213, 125, 255], [25, 52, 182, 255], [55, 136, 228, 255]]),
        ("saturation(1.5)",
         [[0, 36, 255, 0], [1, 141, 255, 255], [35, 255, 0, 255], [137, 54, 108, 255], [159, 157, 154, 255], [179, 255, 198, 85], [255, 54, 0, 255], [0, 194, 20, 255], [52, 0, 144, 255], [78, 98, 194, 255], [98, 198, 237, 170], [197, 0, 0, 255], [226, 105, 30, 255], [249, 208, 76, 255], [0, 31, 226, 255], [14, 136, 255, 255]]),
        ("saturation(0.25)",
         [[61, 70, 108, 0], [117, 140, 168, 255], [159, 196, 150, 255], [98, 85, 94, 255], [158, 158, 157, 255], [221, 234, 224, 85], [165, 128, 108, 255], [105, 145, 116, 255], [48, 38, 63, 255], [102, 105, 121, 255], [164, 181, 188, 170], [108, 75, 72, 255], [157, 136, 124, 255], [216, 209, 187, 255], [55, 62, 94, 255], [112, 132, 155, 255]]),
        ("convolution(1;2;1;2;4;2;1;2;1,3,true)",
         [[57, 99, 202, 100], [85, 152, 178, 185], [106, 163, 103, 244], [101, 119, 78, 255], [104, 116, 169, 185], [132, 153, 161, 191], [137, 148, 102, 223], [100, 120, 61, 249], [124, 96, 125, 244], [136, 133, 149, 223], [125, 128, 138, 223], [104, 100, 97, 244], [171, 113, 92, 255], [151, 134, 132, 249], [92, 113, 169, 244], [71, 101, 176, 249]]),
        ("convolution(-1;-1;-1;-1;8;-1;-1;-1;-1,3,false)",
         [[0, 0, 0, 0], [0, 0, 255, 255], [0, 255, 0, 170], [179, 0, 255, 0], [255, 255, 0, 255], [255, 255, 255, 0], [255, 0, 0, 255], [0, 255, 0, 85], [0, 0, 0, 170], [0, 0, 255, 255], [0, 255, 255, 0], [255, 0, 0, 85], [255, 51, 0, 0], [255, 255, 0, 85], [0, 0, 124, 85], [0, 255, 255, 85]]),
        ("convolution(1;0;1.5,3,false)",
         [[83, 255, 255, 255], [138, 255, 255, 255], [231, 241, 255, 255], [255, 255, 204, 255], [255, 255, 255, 255], [255, 255, 165, 255], [217, 255, 255, 255], [254, 255, 94, 255], [183, 161, 255, 255], [238, 255, 255, 255], [255, 141, 187, 255], [255, 232, 240, 255], [255, 255, 249, 255], [224, 184, 255, 255], [255, 255, 255, 255], [98, 246, 255, 255]]),
        ("convolution(1;2;3;4;5,1)",
         [[63, 65, 158, 153], [100, 156, 211, 209], [137, 179, 94, 226], [106, 82, 61, 255], [113, 83, 123, 204], [150, 174, 176, 221], [102, 129, 127, 232], [88, 100, 112, 255], [151, 97, 97, 238], [188, 188, 150, 232], [71, 91, 152, 238], [74, 114, 153, 255], [176, 106, 79, 255], [213, 197, 132, 243], [45, 66, 168, 243], [65, 123, 187, 255]]),
        ("curve([(0,0),(64,100),(255,255)],[(0,20),(128,128),(255,235)],[(0,0),(255,255)],[(30,0),(200,255)])",
         [[47, 80, 255, 0], [96, 183, 255, 255], [135, 243, 49, 255], [167, 104, 155, 255], [193, 197, 218, 255], [215, 252, 255, 85], [234, 126, 0, 255], [52, 209, 71, 255], [99, 17, 167, 255], [137, 145, 226, 255], [169, 220, 255, 170], [196, 44, 0, 255], [217, 163, 90, 255], [236, 230, 180, 255], [55, 71, 234, 255], [103, 178, 255, 255]]),
        ("background_color(ff0000)",
         [[255, 0, 0, 255], [48, 141, 253, 255], [85, 232, 50, 255], [122, 67, 103, 255], [159, 158, 156, 255], [235, 83, 69, 255], [233, 84, 6, 255], [14, 175, 59, 255], [51, 10, 112, 255], [88, 101, 165, 255], [168, 128, 145, 255], [162, 27, 15, 255], [199, 118, 68, 255], [236, 209, 121, 255], [17, 44, 174, 255], [54, 135, 227, 255]]),
        ("background_color(transparent)",
         [[0, 0, 0, 0], [48, 141, 253, 255], [85, 232, 50, 255], [122, 67, 103, 255], [159, 158, 156, 255], [196, 249, 208, 85], [233, 84, 6, 255], [14, 175, 59, 255], [51, 10, 112, 255], [88, 101, 165, 255], [125, 191, 217, 170], [162, 27, 15, 255], [199, 118, 68, 255], [236, 209, 121, 255], [17, 44, 174, 255], [54, 135, 227, 255]]),
        ("grayscale()",
         [[55, 55, 55, 0], [126, 126, 126, 255], [167, 167, 167, 255], [88, 88, 88, 255], [158, 158, 158, 255], [229, 229, 229, 85], [120, 120, 120, 255], [114, 114, 114, 255], [34, 34, 34, 255], [104, 104, 104, 255], [175, 175, 175, 170], [66, 66, 66, 255], [137, 137, 137, 255], [207, 207, 207, 255], [51, 51, 51, 255], [121, 121, 121, 255]]),
    ]

    // thumbor 7.8's sharpen of `stripes` (its C filter called directly): pixels at `samples`, and the sum of every colour byte.
    static let thumborSharpen: [(filter: String, samples: [[UInt8]], sum: Int)] = [
        ("sharpen(1.5,0.5,true)", [[0, 0, 4, 255], [0, 0, 6, 255], [183, 227, 43, 255], [56, 102, 20, 255], [118, 158, 255, 255], [197, 71, 240, 255], [104, 100, 0, 255], [48, 62, 0, 255]], 605845),
        ("sharpen(2.0,1.0,false)", [[0, 0, 0, 255], [0, 0, 0, 255], [160, 255, 0, 255], [76, 50, 0, 255], [107, 150, 255, 255], [215, 13, 255, 255], [123, 109, 0, 255], [65, 68, 0, 255]], 602820),
        ("sharpen(0.8,3.0,false)", [[0, 0, 0, 255], [0, 0, 0, 255], [170, 221, 15, 255], [0, 84, 0, 255], [100, 164, 255, 255], [234, 80, 255, 255], [120, 123, 15, 255], [48, 67, 15, 255]], 610004),
    ]

    static func image(_ pixels: [[UInt8]], width: Int, hasAlpha: Bool = true) -> Image {
        Image(bitmap: Bitmap(width: width, height: pixels.count / width, pixels: pixels.flatMap { $0 }), hasAlpha: hasAlpha)
    }

    static func processor(_ filters: String) throws -> ThumborProcessor {
        ThumborProcessor(path: try ThumborPath(parsing: "/unsafe/filters:\(filters)/example.com/a.png"))
    }

    /// `filters` run by the processor (its table, its grammar, its steps) on `image`.
    static func apply(_ filters: String, to image: Image) throws -> [[UInt8]] {
        let result = try #require(try processor(filters).process(image))
        return stride(from: 0, to: result.bitmap.pixels.count, by: 4).map { Array(result.bitmap.pixels[$0..<($0 + 4)]) }
    }

    /// The steps a filter list plans on a 2000×2000 image.
    static func steps(_ filters: String) throws -> [ThumborProcessor.Step] {
        let size = PixelSize(width: 2000, height: 2000)
        return try processor(filters).steps(decoded: size, oriented: false, source: size)
    }

    @Test("each filter makes of the 4×4 input exactly the bytes thumbor 7.8 makes", arguments: Self.thumbor.indices)
    func matchesThumbor(_ index: Int) throws {
        let (filter, expected) = Self.thumbor[index]
        let output = try Self.apply(filter, to: Self.image(Self.input, width: 4))
        #expect(output == expected, "\(filter)")
    }

    @Test("sharpen makes thumbor 7.8's pixels: its samples exactly and the same sum of every byte", arguments: Self.thumborSharpen.indices)
    func sharpenMatchesThumbor(_ index: Int) throws {
        let (filter, samples, sum) = Self.thumborSharpen[index]
        let output = try Self.apply(filter, to: Self.image(Self.stripes, width: 40, hasAlpha: false))
        #expect(Self.samples.map { output[$0.1 * 40 + $0.0] } == samples, "\(filter)")
        #expect(output.reduce(0) { $0 + Int($1[0]) + Int($1[1]) + Int($1[2]) } == sum, "\(filter)")
    }

    @Test("equalize keeps thumbor's quirks: the first value any channel has stops the search for each channel's minimum")
    func equalizeQuirks() throws {
        // thumbor 7.8: a single colour makes red 0 (0 / 0) and green and blue 255 (their minimum stayed 0).
        let flat = try Self.apply("equalize()", to: Self.image(Array(repeating: [40, 90, 200, 255], count: 4), width: 2))
        #expect(flat == Array(repeating: [0, 255, 255, 255], count: 4))
        let mixed = try Self.apply("equalize()", to: Self.image([[40, 90, 200, 255], [50, 90, 10, 255], [40, 91, 10, 7], [60, 95, 10, 255]], width: 2))
        #expect(mixed == [[127, 127, 255, 255], [191, 127, 0, 255], [127, 191, 0, 7], [255, 255, 0, 255]])
    }

    @Test("noise with a seed is glibc's random() after srandom(seed); without one, a fresh process's (seed 1)")
    func noiseSeeds() {
        var random = GlibcRandom(seed: 1)
        // glibc's first values after srandom(1) (and in a process that never seeded).
        #expect((0..<3).map { _ in random.next() } == [1_804_289_383, 846_930_886, 1_681_692_777])
    }

    @Test("an image without alpha keeps it opaque: convolution leaves alpha alone, background_color changes nothing")
    func opaqueImages() throws {
        let opaque = Self.input.map { [$0[0], $0[1], $0[2], 255] }
        let edges = try Self.apply("convolution(-1;-1;-1;-1;8;-1;-1;-1;-1,3,false)", to: Self.image(opaque, width: 4, hasAlpha: false))
        #expect(edges.allSatisfy { $0[3] == 255 })
        let flattened = try Self.apply("background_color(ff0000)", to: Self.image(opaque, width: 4, hasAlpha: false))
        #expect(flattened == opaque)
    }

    @Test("filters that change nothing plan no step: brightness(0), noise(0), saturation(1), rgb(0,0,0)")
    func identities() throws {
        for filter in ["brightness(0)", "contrast(0)", "noise(0)", "saturation(1)", "rgb(0,0,0)", "sharpen(0,1,true)"] {
            let planned = try Self.steps(filter)
            #expect(planned.isEmpty, "\(filter)")
        }
    }

    @Test("hostile arguments are refused or clamped before any work",
          arguments: [
            // Refused by the grammar (thumbor's regex would not match, or its C code reads past its input): no step.
            "noise(-5)", "brightness(99999999999)", "convolution(1;2,1)", "convolution(1;2;3,2)", "convolution(1;2;3,0)",
            "convolution(1.2.3,1)", "convolution(\(Array(repeating: "1", count: 27).joined(separator: ";")),1)", "curve([],[(0,0)],[(0,0)],[(0,0)])", "curve([(0,256)],[(0,0)],[(0,0)],[(0,0)])",
            "curve([(0,0)(1,1)],[(0,0)],[(0,0)],[(0,0)])", "colorize(10,10,10,red)", "background_color(notacolour)",
            "sharpen(1,1,maybe)", "saturation(nan)",
          ])
    func hostileArgumentsRefused(_ filter: String) throws {
        let planned = try Self.steps(filter)
        #expect(planned.isEmpty, "\(filter)")
    }

    @Test("a convolution of 10,000 terms and a curve of 10,000 points are refused before anything is parsed into memory")
    func hugeArgumentsRefused() throws {
        let terms = Array(repeating: "1", count: 10_001).joined(separator: ";")
        #expect(ConvolutionKernel.parseTerms(terms) == nil)
        let kernelSteps = try Self.steps("convolution(\(terms),1)")
        #expect(kernelSteps.isEmpty)
        let points = "[" + Array(repeating: "(1,1)", count: 10_000).joined(separator: ",") + "]"
        #expect(CurvePoint.parseList(points) == nil)
        let curveSteps = try Self.steps("curve(\(points),\(points),\(points),\(points))")
        #expect(curveSteps.isEmpty)
        // The largest accepted: 625 terms (25 × 25), 256 points.
        #expect(ConvolutionKernel.parseTerms(Array(repeating: "1", count: 625).joined(separator: ";"))?.count == 625)
        #expect(ConvolutionKernel.parseTerms(Array(repeating: "1", count: 626).joined(separator: ";")) == nil)
        let full = "[" + (0..<256).map { "(\($0),\($0))" }.joined(separator: ",") + "]"
        #expect(CurvePoint.parseList(full)?.count == 256)
    }

    @Test("huge amounts are clamped where thumbor's result no longer changes: every channel 0 or 255")
    func hugeAmountsClamped() throws {
        let image = Self.image(Self.input, width: 4)
        let brightest = try Self.apply("brightness(999999999)", to: image)
        #expect(brightest.allSatisfy { $0[0] == 255 && $0[1] == 255 && $0[2] == 255 })
        let darkest = try Self.apply("brightness(-999999999)", to: image)
        #expect(darkest.allSatisfy { $0[0] == 0 && $0[1] == 0 && $0[2] == 0 })
        let contrast = try Self.apply("contrast(999999999)", to: image)
        #expect(contrast.allSatisfy { $0[0...2].allSatisfy { $0 == 0 || $0 == 255 || $0 == 128 } })
        let noisy = try Self.apply("noise(999999999,3)", to: image)
        #expect(noisy.count == 16)
        let saturated = try Self.apply("saturation(999999999.999999999)", to: image)
        #expect(saturated.count == 16)
        let sharpened = try Self.apply("sharpen(999999999,-999999999,false)", to: image)
        #expect(sharpened.count == 16)
        let colorized = try Self.apply("colorize(999999999,0,999999999,010203)", to: image)
        #expect(colorized.count == 16)
    }

    @Test("a convolution's planned cost grows with its kernel: a pass per term, a window of its rows")
    func convolutionCostScales() throws {
        let small = try #require(try Self.steps("convolution(1;2;1;2;4;2;1;2;1,3)").first)
        let large = try #require(try Self.steps("convolution(\(Array(repeating: "1", count: 625).joined(separator: ";")),25)").first)
        #expect(small.cost.passes == 10)
        #expect(large.cost.passes == 626)
        // A copy of the source (4 bytes a pixel) and the window's rows as doubles: 25 rows of a 2,000-row image,
        // all 25 rows of a 25-row one.
        #expect(large.cost.scratchBytesPerPixel == 4 + 1 && large.cost.makesBitmap)
        let size = PixelSize(width: 2000, height: 25)
        let short = try Self.processor("convolution(\(Array(repeating: "1", count: 625).joined(separator: ";")),25)")
            .steps(decoded: size, oriented: false, source: size)
        #expect(short.first?.cost.scratchBytesPerPixel == 4 + 32)
    }

    @Test("curve's point lists are one argument each, their commas inside brackets")
    func curveArgumentsSplit() throws {
        let path = try ThumborPath(parsing: "/unsafe/filters:curve([(0,0),(255,255)],[(0,0)],[(0,0),],[(9,9)])/example.com/a.png")
        #expect(path.filters.first?.arguments == ["[(0,0),(255,255)]", "[(0,0)]", "[(0,0),]", "[(9,9)]"])
    }
}
