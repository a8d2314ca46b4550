import Foundation
import Testing

@Suite("webimage serve: output flags and the shared validation")
struct ServeOutputFlagsTests {
    @Test("--quality-jpeg/-webp/-avif outside 0–100 are refused at start by the library's validated(), naming the flag")
    func refusesBadQualities() async throws {
        for flag in ["--quality-jpeg", "--quality-webp", "--quality-avif"] {
            let result = try await CLIRunner.run(["serve", "--allow-unsafe", "--port", "0", flag, "101"])
            #expect(result.status == 64)
            #expect(result.stderr.contains("\(flag) must be 0–100"), "\(result.stderr)")
        }
        let negative = try await CLIRunner.run(["serve", "--allow-unsafe", "--port", "0", "--max-redirects=-1"])
        #expect(negative.status == 64 && negative.stderr.contains("--max-redirects cannot be negative"), "\(negative.stderr)")
    }
}
