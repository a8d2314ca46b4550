import Foundation
import WebImage

// Shared by every fuzz entry point (compiled into each target beside its own file).

/// Decode options picked from the input itself, so one corpus reaches the full-size, thumbnail and
/// first-frame paths without a prefix byte that would make the seed files invalid images.
/// The pixel and animation limits are far below the library defaults: the fuzzer is after logic
/// errors, and a 100 MP decode per input would only make it slow (and trip its RSS limit).
func fuzzOptions(for data: Data) -> ImageDecodeOptions {
    var options = ImageDecodeOptions(maxPixelCount: 1 << 22, maxAnimationBytes: 64 << 20)
    switch data.count % 4 {
    case 1: options.thumbnailPixelSize = PixelSize(width: 37, height: 23)
    case 2: options.decodeFirstFrameOnly = true
    case 3:
        options.thumbnailPixelSize = PixelSize(width: 64, height: 64)
        options.preserveAspectRatio = false
        options.scaleDownLimitBytes = 16 << 10
    default: break
    }
    return options
}

/// Checks what every successful decode promises; a broken promise aborts, which libFuzzer reports:
/// consistent bitmaps, one size for all frames, and a thumbnail that fits the box asked for.
func checkInvariants(_ image: Image, _ options: ImageDecodeOptions) {
    let size = image.frames[0].bitmap.size
    for frame in image.frames {
        let bitmap = frame.bitmap
        guard bitmap.width > 0, bitmap.height > 0,
              bitmap.pixels.count >= bitmap.bytesPerRow * bitmap.height,
              bitmap.bytesPerRow >= bitmap.width * Bitmap.bytesPerPixel
        else { fatalError("inconsistent bitmap \(bitmap.width)x\(bitmap.height) row \(bitmap.bytesPerRow)") }
        precondition(bitmap.size == size, "frames of different sizes: \(size) and \(bitmap.size)")
    }
    if let box = options.thumbnailPixelSize, options.scaleDownLimitBytes == nil {
        precondition(size.width <= box.width && size.height <= box.height, "thumbnail \(size) exceeds the box \(box)")
    }
}

/// Decodes with `coder`; a typed ImageCoderError is the expected outcome for most inputs, any other
/// error type is a bug (the API promises ImageCoderError only).
func fuzzDecode(_ coder: some ImageCoder, _ data: Data) {
    do {
        let options = fuzzOptions(for: data)
        checkInvariants(try coder.decode(data, options: options), options)
    } catch is ImageCoderError {
    } catch {
        fatalError("decode threw a non-ImageCoderError: \(error)")
    }
}

/// Feeds `data` to an incremental decoder in pseudo-random chunks (seeded by the input, so a crash
/// reproduces from the file alone), asking for an image after every chunk as a download would,
/// then finishes with a final update.
func fuzzIncremental(_ coder: some ProgressiveImageCoder, _ data: Data) {
    let options = fuzzOptions(for: data)
    let decoder = coder.makeIncrementalDecoder(options: options)
    var state = UInt64(truncatingIfNeeded: data.count) &* 0x9E37_79B9_7F4A_7C15 | 1
    var end = 0
    while end < data.count {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17  // xorshift64
        end = min(data.count, end + 1 + Int(state % 700))
        decoder.update(data.prefix(end), isFinal: false)
        do {
            if let image = try decoder.decodedImage() { checkInvariants(image, options) }
        } catch is ImageCoderError {
        } catch {
            fatalError("partial decode threw a non-ImageCoderError: \(error)")
        }
    }
    decoder.update(data, isFinal: true)
    do {
        if let image = try decoder.decodedImage() { checkInvariants(image, options) }
    } catch is ImageCoderError {
    } catch {
        fatalError("final decode threw a non-ImageCoderError: \(error)")
    }
}

/// The bytes libFuzzer hands over, copied into Data (the library's input type). Half the inputs
/// arrive as a slice whose startIndex is not 0, as `data[range]` from a download buffer would:
/// code that indexes a Data from 0 traps on those.
func fuzzData(_ start: UnsafeRawPointer, _ count: Int) -> Data {
    let whole = Data(bytes: start, count: count)
    guard count & 4 != 0 else { return whole }
    return (Data(repeating: 0xA5, count: 3) + whole).dropFirst(3)
}
