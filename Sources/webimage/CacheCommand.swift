import ArgumentParser
import Foundation
import WebImage

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect or empty the disk cache that fetch and prefetch fill.",
        discussion: """
            Examples:
              webimage cache info           # path, size, entries, oldest, newest
              webimage cache info --json    # the same as one JSON line
              webimage cache clean          # remove expired entries, trim to the limit
              webimage cache clear --cache-dir /tmp/thumbs
            """,
        subcommands: [Info.self, Clean.self, Clear.self, Export.self]
    )

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Print the cache's path, size, entry count and the dates of its oldest and newest entries.",
            discussion: """
                Aligned text by default; --json prints one line:
                  {"path":"…","size":BYTES,"count":N,"oldest":"ISO-8601"|null,"newest":"ISO-8601"|null}
                Dates are when entries were stored (file modification times). Size counts entries and
                their metadata (an extended attribute of each file, or a sidecar where the file system
                has none).
                """)

        @OptionGroup var cacheDirectory: CacheDirectoryOption
        @Flag(help: "Print one JSON line instead of aligned text.") var json = false

        func run() async throws {
            let inventory = CacheInventory(directory: cacheDirectory.directory, limit: cacheDirectory.diskConfig.maxDiskSize)
            print(json ? inventory.jsonLine() : inventory.text())
        }
    }

    struct Clean: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clean",
            abstract: "Remove expired entries (stored more than 7 days ago, by modification date: SDWebImage's default), then trim to --max-cache-size.")

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            let removed = DiskCache(directory: cacheDirectory.directory, config: cacheDirectory.diskConfig).removeExpiredData()
            print("removed \(removed.removedCount) entries, \(ByteCount.text(removed.removedSize)) from \(cacheDirectory.directory.path)")
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every entry (the directory stays).")

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            let cache = DiskCache(directory: cacheDirectory.directory)
            let (count, size) = (cache.totalCount, cache.totalSize)
            cache.removeAll()
            print("removed \(count) entries, \(ByteCount.text(size)) from \(cacheDirectory.directory.path)")
        }
    }
}

/// Byte counts for people: `512 B`, `30.1 KB`, `12.4 MB` (powers of 1000, as `du --si`).
enum ByteCount {
    static func text(_ bytes: Int) -> String {
        let value = Double(bytes)
        switch value {
        case ..<1000: return "\(bytes) B"
        case ..<1e6: return String(format: "%.1f KB", value / 1e3)
        case ..<1e9: return String(format: "%.1f MB", value / 1e6)
        default: return String(format: "%.2f GB", value / 1e9)
        }
    }
}
