import WebImage

// What a download actually uses: ImageCodersManager's incremental decoder, which sniffs the
// format once 16 bytes have arrived, hands over to that format's decoder (GIF: none, a full
// decode at the end), and must cope with any format, or none, behind the first bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    fuzzIncremental(ImageCodersManager.shared, fuzzData(start, count))
    return 0
}
