import WebImage

// Whole-file decode through JXLCoder (full size, thumbnail or first frame, chosen by FuzzSupport).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    fuzzDecode(JXLCoder(), fuzzData(start, count))
    return 0
}
