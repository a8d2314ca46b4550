import Foundation
@testable import WebImage

/// One row of the origin fault matrix: what the origin does wrong, how the downloader is set up,
/// and what a user of ``ImageManager`` must see.
struct FaultRow: Sendable, CustomStringConvertible {
    enum Outcome: Sendable {
        /// The load throws the ``WebImageError`` with this `code`; the URL is blocklisted or not.
        case fails(code: Int, blocklisted: Bool)
        /// The load succeeds (the fault is one the pipeline must ride out).
        case loads
    }

    var name: String
    /// The path the load asks for; its extension tells the origin which content type to send.
    var path = "/fault.jpg"
    /// Routes to install: usually just `path`, more for redirect chains.
    var routes: [String: OriginResponse]
    var tls = false
    var options: WebImageOptions = []
    /// Tightens the downloader (the matrix's default idle timeout is 0.5 s).
    var configure: @Sendable (inout DownloaderConfig) -> Void = { _ in }
    var outcome: Outcome

    init(
        _ name: String, path: String = "/fault.jpg", _ response: OriginResponse, tls: Bool = false,
        options: WebImageOptions = [], configure: @escaping @Sendable (inout DownloaderConfig) -> Void = { _ in },
        _ outcome: Outcome
    ) {
        self.init(name, path: path, routes: [path: response], tls: tls, options: options, configure: configure, outcome)
    }

    init(
        _ name: String, path: String, routes: [String: OriginResponse], tls: Bool = false,
        options: WebImageOptions = [], configure: @escaping @Sendable (inout DownloaderConfig) -> Void = { _ in },
        _ outcome: Outcome
    ) {
        self.name = name
        self.path = path
        self.routes = routes
        self.tls = tls
        self.options = options
        self.configure = configure
        self.outcome = outcome
    }

    var description: String { name }
}
