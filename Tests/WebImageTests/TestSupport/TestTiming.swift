import Foundation
@testable import WebImage

/// How much slower than a plain debug build this run is expected to be. `scripts/tsan` sets
/// `WEBIMAGE_TEST_TIME_SCALE` (ThreadSanitizer runs the suite 5-15x slower, and its TLS handshakes
/// alone outlast a 0.5 s connect timeout); specs whose point is a timeout stretch both the timeout
/// and the fault that trips it by this factor, so they test the same thing at any speed.
enum TestTiming {
    static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["WEBIMAGE_TEST_TIME_SCALE"],
              let value = Double(text), value >= 1 else { return 1 }
        return value
    }()

    /// `seconds` stretched by ``scale``.
    static func seconds(_ seconds: Double) -> Double { seconds * scale }
}

extension RequestModifier {
    /// Sets the request's own idle timeout (``DownloadRequest/timeout``), leaving the rest.
    static func timeout(_ seconds: TimeInterval) -> RequestModifier {
        RequestModifier { request in
            var request = request
            request.timeout = seconds
            return request
        }
    }
}
