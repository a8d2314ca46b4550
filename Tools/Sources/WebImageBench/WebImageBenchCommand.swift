import ArgumentParser
import Foundation
import WebImage

@main
struct WebImageBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage-bench",
        abstract: "WebImage's in-process benchmarks and HTTP floor clients, driven by Tools/harness.",
        discussion: """
            Each command prints JSON lines for a harness script to read. Build it with Tools/build \
            (release, the Swift runtime linked in, as the harness measures); it prints the binary's path.
            """,
        subcommands: [
            BenchDecodeCommand.self, BenchResizeCommand.self, BenchEncodeCommand.self, BenchAnimationCommand.self,
            BenchDownloadCommand.self, BenchLoadsCommand.self, BenchSweepCommand.self,
        ]
    )
}

/// A failure printed as one `Error:` line on stderr, exit status 1.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ImageCodersManager {
    /// The `webimage` CLI's coders for files named on the command line: the defaults plus ``HEIFCoder``
    /// (opt-in in the library, as a hostile HEIC is a server's risk, not a benchmark's).
    static let localFiles: ImageCodersManager = {
        let manager = ImageCodersManager()
        manager.addCoder(HEIFCoder())
        return manager
    }()
}
