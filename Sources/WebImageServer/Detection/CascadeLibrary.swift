import Foundation
import Synchronization

/// The cascade files a process has read, each parsed once: a cascade is a large XML file, slow
/// to parse, and every detection needs it. A missing or unusable file is
/// remembered as missing (no retry per request; a restart picks up a newly installed one).
public final class CascadeLibrary: Sendable {
    /// Where Debian's `opencv-data` installs the cascades thumbor uses.
    public static let standardDirectory = URL(fileURLWithPath: "/usr/share/opencv4/haarcascades")

    /// A library for callers without one of their own: it only remembers parsed files by their
    /// full path, so sharing it never makes two servers read each other's directory.
    public static let shared = CascadeLibrary()

    private let loaded = Mutex<[String: Cascade?]>([:])

    public init() {}

    /// The cascade `name` in `directory`, or nil when it is missing or unusable.
    public func cascade(named name: String, in directory: URL = CascadeLibrary.standardDirectory) -> Cascade? {
        let path = directory.appendingPathComponent(name).path
        if let known = loaded.withLock({ $0[path] }) { return known }
        // Parsed outside the lock: two first callers may both parse; the result is the same.
        let cascade = try? Cascade(contentsOf: URL(fileURLWithPath: path))
        loaded.withLock { $0[path] = .some(cascade) }
        return cascade
    }
}
