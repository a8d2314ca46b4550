import Foundation
import WebImage

extension VariantPipeline {
    /// The bytes of the images a variant's filters draw (``overlayURLs(_:)``), by URL as written,
    /// loaded at once. Each is a source like any other: parsed by ``SourceURL``, fetched by ``sourceData(_:)`` (every address check, every limit, the source cache); the
    /// first that fails fails the request with its failure, as thumbor answers an error when a
    /// watermark cannot load.
    func loadOverlays(_ sources: [(String, URL)]) async throws -> [String: Data] {
        guard !sources.isEmpty else { return [:] }
        return try await withThrowingTaskGroup(of: (String, Data).self) { group in
            for (text, url) in sources {
                group.addTask { (text, try await self.sourceData(url)) }
            }
            var loaded: [String: Data] = [:]
            for try await (text, data) in group { loaded[text] = data }
            return loaded
        }
    }

    /// Each image's URL as written, and the source URL it names (the one a purge names too).
    func overlayURLs(_ written: [String]) throws(ServerFailure) -> [(String, URL)] {
        // Filter arguments reach here as the client wrote them; thumbor reads them percent-decoded, as its sources.
        try written.map { text throws(ServerFailure) in (text, try SourceURL.parse(text.removingPercentEncoding ?? text)) }
    }
}
