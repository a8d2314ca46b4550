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
              webimage cache clean --max-age 30d --expire-type access
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
            abstract: "Remove expired entries (by default stored more than 7 days ago, by modification date: SDWebImage's rule), then trim to --max-cache-size.",
            discussion: """
                Images pinned in a collection stay. --expire-type access ages entries by when they were                 last read (the file system's access time: with Linux's default relatime, at least daily).

                Examples:
                  webimage cache clean --max-age 30d
                  webimage cache clean --max-age 12h --expire-type access
                """)

        @OptionGroup var cacheDirectory: CacheDirectoryOption
        @Option(name: .customLong("max-age"), help: ArgumentHelp("Remove entries older than this: 90s, 45m, 12h, 30d or 2w (default 7d).", valueName: "DURATION"))
        var maxAge: Age = Age(seconds: DiskCacheConfig().maxDiskAge)
        @Option(name: .customLong("expire-type"), help: ArgumentHelp("Age by when an entry was stored (modification) or last read (access).", valueName: "access|modification"))
        var expireType: ExpireType = .modification

        enum ExpireType: String, ExpressibleByArgument, CaseIterable {
            case access, modification
        }

        /// A duration as people write one: a number and a unit (s, m, h, d, w); a bare number is seconds.
        struct Age: ExpressibleByArgument {
            let seconds: TimeInterval
            init(seconds: TimeInterval) { self.seconds = seconds }
            init?(argument: String) {
                let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]
                let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
                let unit = text.last.flatMap { units[$0] }
                guard let value = Double(unit == nil ? text : String(text.dropLast())), value >= 0, value.isFinite else { return nil }
                seconds = value * (unit ?? 1)
            }

            var defaultValueDescription: String {
                seconds.truncatingRemainder(dividingBy: 86400) == 0 ? "\(Int(seconds / 86400))d" : "\(Int(seconds))s"
            }
        }

        func run() async throws {
            var config = cacheDirectory.diskConfig
            config.maxDiskAge = maxAge.seconds
            config.expireType = expireType == .access ? .accessDate : .modificationDate
            let removed = DiskCache(directory: cacheDirectory.directory, config: config).removeExpiredData()
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
