import WebImage

extension FilterTable {
    /// Filters that set how the variant is written.
    static let encoderRows: [FilterRow] = [
        FilterRow("format", [.string], kind: .encoder, summary: "write as jpeg, png, webp, gif or avif",
                  action: .output { output, values in
                      guard let format = values[0].string.flatMap({ formats[$0.lowercased()] }) else { return false }
                      output.format = format
                      return true
                  }),
        FilterRow("quality", [.positiveNumber], kind: .encoder, summary: "encoder quality, 0–100",
                  action: .output { output, values in
                      guard let quality = values[0].integer, (0...100).contains(quality) else { return false }
                      output.quality = quality
                      return true
                  }),
        FilterRow("max_bytes", [.positiveNumber], kind: .encoder, summary: "lower the quality until the variant fits in this many bytes (JPEG, WebP)",
                  action: .output { output, values in
                      guard let limit = values[0].integer, limit > 0 else { return false }
                      output.maxBytes = limit
                      return true
                  }),
        FilterRow("max_age", [.positiveNumber], kind: .encoder, summary: "Cache-Control max-age of this variant, seconds (0: no-cache)",
                  action: .output { output, values in
                      guard let seconds = values[0].integer, seconds >= 0 else { return false }
                      // thumbor takes any integer; a header value past ten years means nothing more.
                      output.maxAge = min(seconds, 10 * 365 * 24 * 3600)
                      return true
                  }),
        FilterRow("autojpg", [.boolean], required: 0, kind: .encoder,
                  summary: "write a PNG without transparency as JPEG (toggles the server's --auto-png-to-jpg)",
                  action: .output { output, values in
                      output.autoJPG = values.first?.boolean ?? true
                      return true
                  }),
        FilterRow("strip_icc", kind: .encoder, summary: "no ICC profile in the output (always true: colours are converted to sRGB)", action: .holds),
        FilterRow("strip_exif", kind: .encoder, summary: "no EXIF in the output (always true: pixels leave upright)", action: .holds),
    ]
}
