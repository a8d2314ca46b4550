import ArgumentParser

@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Decode, fetch and cache images: SDWebImage's loading system for Swift on Linux.",
        subcommands: [DecodeCommand.self, ShowCommand.self, BenchCommand.self, BenchResizeCommand.self, BenchSweepCommand.self, BenchDownloadCommand.self]
    )
}
