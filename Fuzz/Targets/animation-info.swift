import Foundation
import WebImage

// animationInfo(of:) reads frame and loop counts from the container alone (GIF records, APNG
// chunks, WebP RIFF) with no pixel limit, so it must stay cheap and safe on any bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = fuzzData(start, count)
    let coders: [any AnimatedImageCoder] = [GIFCoder(), PNGCoder(), WebPCoder()]
    for coder in coders where coder.canDecode(data) {
        do {
            let info = try coder.animationInfo(of: data)
            precondition(info.frameCount >= 1 && info.loopCount >= 0, "impossible \(info)")
        } catch is ImageCoderError {
        } catch {
            fatalError("animationInfo threw a non-ImageCoderError: \(error)")
        }
    }
    return 0
}
