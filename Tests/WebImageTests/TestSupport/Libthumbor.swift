import Foundation
import Testing

/// URLs made by PyPI's libthumbor — a real thumbor client no one here wrote — so the server is held
/// to what thumbor users already send. It lives in the package's `.venv-tests` (made by `scripts/test`,
/// or `scripts/test --venv-only`), found from this file's path: a plain `swift test` needs no PATH set up.
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
        let python = venv.appendingPathComponent("bin/python3")
        try #require(FileManager.default.isExecutableFile(atPath: python.path),
                     "\(venv.path) is missing: `scripts/test --venv-only` makes it (libthumbor in a venv of Debian's python3)")
        let result = try await onOwnThread { try CLIRunner.run(python, ["-c", script, key] + options) }
        try #require(result.status == 0, "libthumbor failed in \(venv.path) (`scripts/test --venv-only` installs it): \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// `.venv-tests` in the package root (four levels above this file), or `WEBIMAGE_TEST_VENV`.
    static var venv: URL {
        if let path = ProcessInfo.processInfo.environment["WEBIMAGE_TEST_VENV"] { return URL(fileURLWithPath: path) }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".venv-tests")
    }
}
