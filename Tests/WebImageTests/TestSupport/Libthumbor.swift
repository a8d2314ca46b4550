import Foundation
import Testing

/// URLs made by PyPI's libthumbor — a real thumbor client no one here wrote — so the server is held
/// to what thumbor users already send. `scripts/bootstrap` installs it.
enum Libthumbor {
    /// `CryptoURL(key).generate(**options)` for each options dictionary (Python literal text).
    static func urls(key: String, _ options: [String]) async throws -> [String] {
        let script = """
        import sys
        from libthumbor import CryptoURL
        c = CryptoURL(key=sys.argv[1])
        for options in sys.argv[2:]:
            print(c.generate(**eval(options)))
        """
        let result = try await onOwnThread { () throws -> (Int32, String, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script, key] + options
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
        }
        try #require(result.0 == 0, "libthumbor failed (scripts/bootstrap installs it): \(result.2)")
        return result.1.split(separator: "\n").map(String.init)
    }
}
