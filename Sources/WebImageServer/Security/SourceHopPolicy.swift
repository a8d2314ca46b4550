import Foundation
import WebImage

/// The server's SSRF check as the downloader's hop policy: each hop's host is resolved, every
/// address checked (``SourceResolver``), and the hop goes to the checked address under the host's
/// normalized spelling — so a DNS answer that changes between the check and the connection, or a
/// respelt host, cannot send it anywhere else.
struct SourceHopPolicy: DownloadHopPolicy {
    let resolver: SourceResolver

    func allow(next url: URL) async throws(WebImageError) -> DownloadHop {
        do {
            let target = try await resolver.resolve(url)
            return DownloadHop(url: target.url, address: target.address.description)
        } catch .lookupTimedOut {
            throw .transport(.timedOut(.connect))
        } catch {
            throw .refusedByHopPolicy(reason: SourceLoader.refusalPrefix + error.description)
        }
    }
}
