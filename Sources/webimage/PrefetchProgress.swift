import Foundation

/// The live display of a prefetch on stderr: a bar redrawn in place on a terminal, a plain line
/// every few seconds otherwise (logs, CI), nothing with `--no-progress`.
struct PrefetchProgress: Sendable {
    enum Style: Sendable { case bar, lines, none }

    let style: Style
    let tally: PrefetchTally

    init(tally: PrefetchTally, enabled: Bool) {
        self.tally = tally
        style = !enabled ? .none : isatty(STDERR_FILENO) != 0 ? .bar : .lines
    }

    /// Redraws until the calling task is cancelled, then clears the bar.
    func run() async {
        guard style != .none else { return }
        let interval: Duration = style == .bar ? .milliseconds(100) : .seconds(2)
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled else { break }
            emit(style == .bar ? "\r" + bar() + "\u{1B}[K" : line() + "\n")
        }
        if style == .bar { emit("\r\u{1B}[K") }
    }

    /// `[#######.............]  1234/5000  24%  812/s  36.5 MB  ETA 5 s`
    func bar(width: Int = 24) -> String {
        let s = tally.snapshot
        let fraction = s.total == 0 ? 1 : Double(s.done) / Double(s.total)
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "[\(bar)] \(s.done)/\(s.total) \(Int(fraction * 100))%  " + rates(s)
    }

    /// `prefetch: 1234/5000, 812/s, 36.5 MB, ETA 5 s, 3 failed`
    func line() -> String {
        let s = tally.snapshot
        return "prefetch: \(s.done)/\(s.total), " + rates(s).replacingOccurrences(of: "  ", with: ", ")
    }

    private func rates(_ s: PrefetchTally.Snapshot) -> String {
        let elapsed = max(tally.elapsedSeconds, 0.001)
        let rate = Double(s.done) / elapsed
        let eta = rate > 0 ? "ETA \(Int((Double(s.total - s.done) / rate).rounded(.up))) s" : "ETA -"
        var text = "\(Int(rate))/s  \(ByteCount.text(Int(s.bytes)))  \(eta)"
        if !s.failed.isEmpty { text += "  \(s.failed.count) failed" }
        return text
    }

    private func emit(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
