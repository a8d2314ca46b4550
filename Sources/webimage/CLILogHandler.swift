import Foundation
import Logging

/// One line a message on stderr, shaped for people rather than log collectors: info messages
/// bare (they are what `-v` asks for), other levels prefixed (`warning: …`), metadata as
/// `key=value` after the message. No timestamps: the CLI's runs are short.
struct CLILogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = event.level == .info ? "" : "\(event.level): "
        line += "\(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
