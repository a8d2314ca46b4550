import CAVIF

/// libavif's result codes and diagnostics as one readable reason.
enum AVIFStatus {
    static func reason(_ result: avifResult, _ diag: avifDiagnostics?) -> String {
        let name = String(cString: avifResultToString(result))
        guard let diag else { return name }
        let detail = withUnsafeBytes(of: diag.error) { bytes in String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
        return detail.isEmpty ? name : name + ": " + detail
    }
}
