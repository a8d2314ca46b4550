import Foundation
import Testing

/// URLs made by PyPI's libthumbor — a real thumbor client no one here wrote — so the server is held
/// to what thumbor users already send. `scripts/test` installs it into .venv-tests and puts that first on PATH.
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
        let result = try await onOwnThread {
            try CLIRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, key] + options)
        }
        try #require(result.status == 0, "libthumbor failed (scripts/test installs it into .venv-tests; run the specs through scripts/test, or put .venv-tests/bin first on PATH): \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }
}
