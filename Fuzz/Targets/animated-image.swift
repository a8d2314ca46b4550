import Foundation
import WebImage

// AnimatedImage over any bytes: the header walk, then frames on demand as a player asks for them
// — forward, then back to the start (a new sequence), then one jump ahead. At most 32 frames, so
// an input's cost stays that of a decode.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = fuzzData(start, count)
    do {
        let image = try AnimatedImage(data: data, options: fuzzOptions(for: data))
        precondition(image.frameCount >= 1 && image.frameDurations.count == image.frameCount, "frame count and durations disagree")
        let last = min(image.frameCount, 32) - 1
        for index in Array(0...last) + [0, last / 2] {
            let frame = try image.frame(at: index)
            precondition(frame.size == image.pixelSize, "frame \(index) is \(frame.size), not \(image.pixelSize)")
        }
    } catch is ImageCoderError {
    } catch {
        fatalError("AnimatedImage threw a non-ImageCoderError: \(error)")
    }
    return 0
}
