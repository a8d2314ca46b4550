import WebImage

// Progressive decode through PNGCoder's incremental decoder, the input fed in chunks as a download.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    fuzzIncremental(PNGCoder(), fuzzData(start, count))
    return 0
}

// Keeps chunk CRCs valid after mutation so the fuzzer gets past libpng's and the APNG parser's
// CRC checks (PNGChunkRepair.swift).
@_cdecl("LLVMFuzzerCustomMutator")
public func customMutator(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    mutatePNG(data, size, maxSize, seed)
}
