import Foundation
import Testing
import WebImage
@testable import WebImageServer

@Suite("webimage serve: variant stage metrics")
struct VariantStageMetricsTests {
    /// The `_count` line of one stage's histogram for sources in `format`.
    private func countLine(_ stage: VariantStage, _ format: String, _ count: Int) -> String {
        #"webimage_variant_stage_seconds_count{stage="\#(stage.rawValue)",format="\#(format)"} \#(count)"#
    }

    private func metricLines(_ harness: ServerHarness) async throws -> Set<String> {
        let reply = try await harness.get("/metrics")
        return Set(String(decoding: reply.body, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    @Test("a served variant records each stage once by its source's format (fetch, header, decode, transform, encode, store); a result-cache hit records none")
    func eachStageOnce() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            harness.origin.route("/b.jpg", .fixture("jpeg-baseline.jpg"))
            #expect(try await harness.get(harness.unsafe("10x0", "/a.png")).status == 200)
            #expect(try await harness.get(harness.unsafe("12x0/filters:format(webp)", "/b.jpg")).status == 200)
            #expect(try await harness.get(harness.unsafe("10x0", "/a.png")).status == 200)  // a result hit
            let lines = try await metricLines(harness)
            for stage in VariantStage.allCases {
                #expect(lines.contains(countLine(stage, "png", 1)), "\(stage) for the PNG source")
                #expect(lines.contains(countLine(stage, "jpeg", 1)), "\(stage) for the JPEG source")
            }
            #expect(!lines.contains { $0.hasPrefix("webimage_variant_stage_seconds_count") && $0.contains(#"format="webp""#) },
                    "the label is the source's format, not the variant's")
        }
    }
}
