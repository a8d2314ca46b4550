import Foundation
import Synchronization
import Testing

/// Runs the built `webimage` executable, as scripts and people do.
enum CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// `swift build`/`swift test` put the executable beside the test bundle's resources.
    static var executable: URL {
        Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("webimage")
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let path = executable
        try #require(FileManager.default.isExecutableFile(atPath: path.path),
                     "build the CLI first (swift build builds it): \(path.path) is missing")
        return try run(path, arguments, environment: environment)
    }

    /// Any program run to its end, with its output collected (libthumbor's Python, say);
    /// `environment` is added to this process's own.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes drain at once, before the wait: a child that filled one while we read the
        // other to its end would block for ever (the loader's log under LD_DEBUG is ~30 KB).
        let output = DrainedPipe(out)
        let errors = DrainedPipe(err)
        process.waitUntilExit()
        // A process another spec spawned meanwhile may have inherited the pipes' write ends and
        // keep them open: once the child has exited, its output is what arrived shortly after.
        // Long: on Linux GCD adds threads for blocked readers slowly, so a reader can start late.
        let settled = DispatchTime.now() + 120
        let stdout = output.wait(until: settled)
        let stderr = errors.wait(until: settled)
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// The same, for async tests: the blocking wait runs on a thread of its own (``onOwnThread(_:)``).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await onOwnThread { try run(arguments, environment: environment) }
    }
}

/// A pipe read to its end on a thread of its own.
private final class DrainedPipe: Sendable {
    private let data = Mutex(Data())
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        DispatchQueue.global().async { [self] in
            while case let chunk = handle.availableData, !chunk.isEmpty {
                data.withLock { $0.append(chunk) }
            }
            done.signal()
        }
    }

    /// What was read by the pipe's end, or by `deadline`.
    func wait(until deadline: DispatchTime) -> Data {
        _ = done.wait(timeout: deadline)
        return data.withLock { $0 }
    }
}
