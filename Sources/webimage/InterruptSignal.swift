import Dispatch
import Foundation
import Synchronization

/// Ctrl-C as an event rather than death: the first SIGINT runs `onInterrupt` (the command cancels
/// and wraps up, so what finished stays cached and the summary is printed); a second one exits at
/// once with status 130, for a wrap-up that hangs.
final class InterruptSignal: Sendable {
    private let count = Atomic<Int>(0)
    // Created and resumed once in init, cancelled once in `stop()`; the source object itself is
    // thread-safe (libdispatch), it is only not annotated Sendable.
    private nonisolated(unsafe) let source: any DispatchSourceSignal

    init(onInterrupt: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)  // the dispatch source sees the signal only if the default action is off
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "webimage.sigint"))
        source.setEventHandler { [weak self] in
            guard let self else { return }
            if count.add(1, ordering: .relaxed).newValue > 1 { exit(130) }
            onInterrupt()
        }
        source.resume()
    }

    var wasInterrupted: Bool { count.load(ordering: .relaxed) > 0 }

    /// Back to the default action (a later Ctrl-C kills the process).
    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
