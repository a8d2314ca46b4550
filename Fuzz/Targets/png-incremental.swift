import WebImage

// Progressive decode through PNGCoder's incremental decoder, the input fed in chunks as a download.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    fuzzIncremental(PNGCoder(), fuzzData(start, count))
    return 0
}
