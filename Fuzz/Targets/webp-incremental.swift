import WebImage

// Progressive decode through WebPCoder's incremental decoder, the input fed in chunks as a download.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    fuzzIncremental(WebPCoder(), fuzzData(start, count))
    return 0
}
