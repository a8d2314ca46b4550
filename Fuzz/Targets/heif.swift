import WebImage

// Whole-file decode through HEIFCoder (full size or thumbnail, chosen by FuzzSupport).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    fuzzDecode(HEIFCoder(), fuzzData(start, count))
    return 0
}
