import AsyncHTTPClient
import NIOCore

/// What a ``DownloadTransfer`` needs from the request carrying its bytes, whichever client runs
/// it (AsyncHTTPClient's task or ``HTTP1Exchange``): the event loop its timers run on, and a way
/// to stop the request — with the reason the callers will get, or as a cancel.
protocol TransferTask: AnyObject, Sendable {
    var eventLoop: any EventLoop { get }
    func fail(reason: any Error)
    func cancel()
}

extension HTTPClient.Task: TransferTask {}
