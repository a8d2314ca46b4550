import Foundation
import NIOSSL

/// The specs' temporary files and folders: all inside one folder of this test process,
/// `$TMPDIR/webimage-tests-PID`, removed when the process exits — so a write that lands after a
/// spec removed its own folder (a cache's background store, a child still exiting) leaves nothing.
enum TemporaryFolder {
    /// This process's folder, made on first use; its removal is registered with `atexit`.
    static let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-tests-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TemporaryFolder.root) }
        return url
    }()

    /// A fresh path named after `name` (`fifo.png` → `fifo-UUID.png`), nothing there yet.
    static func url(_ name: String) -> URL {
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        return root.appendingPathComponent("\(stem)-\(UUID().uuidString)" + (ext.isEmpty ? "" : "." + ext))
    }

    /// A fresh, empty folder; prefer ``withTemporaryFolder(_:_:)``, which removes it.
    static func make(_ purpose: String) throws -> URL {
        let folder = url(purpose)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a fresh folder, removed afterwards even when `body` throws.
func withTemporaryFolder<T>(_ purpose: String = "folder", _ body: (URL) async throws -> T) async throws -> T {
    let folder = try TemporaryFolder.make(purpose)
    defer { TemporaryFolder.remove(folder) }
    return try await body(folder)
}

/// Runs `body` with a fresh loopback origin (TLS when `tls` is given) and a fresh folder, as the CLI
/// specs use them; stops the origin and removes the folder afterwards, even when `body` throws.
func withOriginAndFolder<T>(
    tls: NIOSSLContext? = nil, _ body: (TestOrigin, URL) async throws -> T
) async throws -> T {
    let origin = try await TestOrigin.start(tls: tls)
    defer { origin.stop() }
    return try await withTemporaryFolder("cli") { folder in try await body(origin, folder) }
}
