import Foundation
import NIOCore

/// One request on an ``HTTP1BulkConnection``: who asked (``HTTP1BulkConnection/cancel(owner:)``
/// stops only its own), what to check, where it stands. A class, not a struct: each look at the
/// fetch in flight under the connection's lock would otherwise copy it whole (a dozen references
/// and an existential). `@unchecked Sendable`: its `let`s
/// never change; once in the connection's `State.fetch`, its `var`s are read and written only
/// under the connection's lock, and after `take()` only by the one who took it.
final class HTTP1BulkFetch: @unchecked Sendable {  // vars guarded by HTTP1BulkConnection.state's lock
    let owner: ObjectIdentifier
    let request: DownloadRequest
    let responseModifier: (any DownloadResponseModifying)?
    let cookieJar: CookieJar?
    let redirects: RedirectChain
    let continuation: UnsafeContinuation<HTTP1BulkConnection.Outcome, Never>
    let deadline: NIODeadline?
    var response: DownloadResponse?
    var body: ResponseBody
    var lastActivity = NIODeadline.now()
    var redirect: (target: URL, status: UInt)?
    var keepAlive = true
    /// Written on a connection opened before this fetch: one the server may have closed
    /// meanwhile, so a close before any answer is retried once.
    var onOpenConnection = false
    /// Why we stopped the fetch ourselves; wins over what the connection reports after.
    var failure: (any Error)?
    var retried = false

    init(owner: ObjectIdentifier, request: DownloadRequest, responseModifier: (any DownloadResponseModifying)?,
         cookieJar: CookieJar?, redirects: RedirectChain, continuation: UnsafeContinuation<HTTP1BulkConnection.Outcome, Never>,
         deadline: NIODeadline?, body: ResponseBody) {
        self.body = body
        self.owner = owner
        self.request = request
        self.responseModifier = responseModifier
        self.cookieJar = cookieJar
        self.redirects = redirects
        self.continuation = continuation
        self.deadline = deadline
    }

    /// The request's own idle timeout (``DownloadRequest/timeout``); nil for none.
    var idleTimeout: TimeAmount? { TimeAmount.limit(seconds: request.timeout) }

    /// When the timer must look at this fetch, counting idleness from `activity`.
    func nextCheck(_ activity: NIODeadline) -> NIODeadline? {
        guard let idle = idleTimeout.map({ activity + $0 }) else { return deadline }
        return deadline.map { min(idle, $0) } ?? idle
    }
}
