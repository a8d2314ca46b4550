import Foundation
import WebImage

// ImageIntegrity.check (prefetch's stand-in for a decode): never traps on any bytes, answers the
// same for a Data slice (non-zero startIndex), and passes only the four formats it knows.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = fuzzData(start, count)
    let verdict = Result { () throws(ImageCoderError) in try ImageIntegrity.check(data, maxPixelCount: 1 << 24) }
    let slice = (Data([0x00]) + data).dropFirst()
    let sliceVerdict = Result { () throws(ImageCoderError) in try ImageIntegrity.check(slice, maxPixelCount: 1 << 24) }
    let passed = (try? verdict.get()) != nil
    precondition(passed == ((try? sliceVerdict.get()) != nil), "a Data slice checks differently")
    if passed {
        precondition([.jpeg, .png, .gif, .webp].contains(ImageFormat.detect(data)), "passed a format it does not know")
    }
    return 0
}

// PNG inputs keep valid chunk CRCs after mutation (PNGChunkRepair.swift), so the fuzzer reaches
// the checks behind them — a hostile header with a correct CRC is the case that matters.
@_cdecl("LLVMFuzzerCustomMutator")
public func customMutator(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    mutatePNG(data, size, maxSize, seed)
}
