import Foundation
import Synchronization
import WebImage

/// Load progress on stderr (`\r`-rewritten, so it needs a terminal): percent when the size is
/// known, a spinner otherwise; cleared when the load ends.
final class TerminalIndicator: ImageIndicator {
    private let state = Mutex((active: false, frame: 0))

    func startAnimating() {
        state.withLock { $0.active = true }
        write("\r\u{1B}[2Kloading…")
    }

    func stopAnimating() {
        let wasActive = state.withLock { state in
            defer { state.active = false }
            return state.active
        }
        if wasActive { write("\r\u{1B}[2K") }
    }

    func updateProgress(_ progress: Double) {
        guard state.withLock({ $0.active }) else { return }
        write("\r\u{1B}[2Kloading \(Int((progress * 100).rounded()))%")
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
