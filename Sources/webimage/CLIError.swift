import Foundation

/// A failure the user can act on: printed as one `error:` line on stderr, exit status 1.
struct CLIError: Error {
    let message: String
    init(_ message: String) { self.message = message }

    static func exit(with message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        Foundation.exit(1)
    }
}
