import Foundation
import WebImage

// ImageFormat.detect: never traps on any length, agrees between its Data and raw-bytes forms and on
// a Data slice (non-zero startIndex), and each built-in coder claims exactly its own format.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = fuzzData(start, count)
    let format = ImageFormat.detect(data)
    let viaBytes = ImageFormat.detect(UnsafeRawBufferPointer(start: start, count: count))
    precondition(viaBytes == format, "Data says \(format), raw bytes say \(viaBytes)")
    let slice = (Data([0x00]) + data).dropFirst()
    precondition(ImageFormat.detect(slice) == format, "a Data slice sniffs differently")
    let coders: [(any ImageCoder, ImageFormat)] = [
        (JPEGCoder(), .jpeg), (PNGCoder(), .png), (GIFCoder(), .gif), (WebPCoder(), .webp),
    ]
    for (coder, own) in coders {
        precondition(coder.canDecode(data) == (format == own), "\(type(of: coder)) disagrees with detect (\(format))")
    }
    precondition(ImageCodersManager.shared.canDecode(data) == [.jpeg, .png, .gif, .webp].contains(format))
    return 0
}
