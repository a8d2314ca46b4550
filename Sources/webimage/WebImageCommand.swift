import ArgumentParser

@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Fetch, cache, prefetch and decode images: SDWebImage's loading system for Swift on Linux.",
        discussion: """
            Examples:
              webimage fetch https://example.com/cat.jpg --thumbnail 256x256 -o cat.png -v
              webimage prefetch --from urls.txt --concurrency 16
              webimage collection add chapter-1 --from chapter-1.txt
              webimage fetch https://example.com/cat.jpg --offline
              webimage cache info
              webimage decode photo.jpg
              webimage show https://example.com/cat.jpg

            Images are cached in $XDG_CACHE_HOME/webimage/default (else ~/.cache/webimage/default); \
            --cache-dir DIR picks another. `webimage help COMMAND` explains each command.
            """,
        subcommands: [
            FetchCommand.self, PrefetchCommand.self, CollectionCommand.self, CacheCommand.self, DecodeCommand.self, ShowCommand.self, ServeCommand.self,
        ]
    )

    /// Parses and runs the command — `show` with one allocator arena, set here, before any other
    /// thread exists (an arena a thread has taken stays in use): it makes frames on one thread and
    /// frees them on another, on whichever threads a busy machine gives it.
    static func main() async {
        if CommandLine.arguments.dropFirst().first == ShowCommand.configuration.commandName { MallocTuning.useOneArena() }
        await main(nil)
    }
}
