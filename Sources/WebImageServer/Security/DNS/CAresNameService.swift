import CAres
import Foundation
import Synchronization

/// DNS through c-ares on one thread of its own: every lookup is a non-blocking query on one channel,
/// so a name whose DNS never answers holds no thread and stalls no other name; c-ares gives up on
/// it after its own timeout, and its answers carry their records' TTLs. `/etc/hosts` is read
/// first, as the system resolver does (c-ares follows `nsswitch.conf` and `resolv.conf`).
final class CAresNameService: NameService {
    struct Options: Sendable {
        /// The first try's timeout; c-ares doubles it on each retry.
        var timeout: Duration = .seconds(1)
        /// Tries per name server.
        var tries = 2
        /// Name servers as `ADDRESS:PORT` (comma-separated); nil = `resolv.conf`'s.
        var servers: String?
        /// Applies `resolv.conf`'s search domains to names with few dots (the system resolver does).
        var searchDomains = true
    }

    private struct Pending {
        var queries: [QueryContext] = []
        var closed = false
    }

    private let pending = Mutex(Pending())
    /// Written to wake the loop thread for new queries or to close.
    private let wakeRead: Int32, wakeWrite: Int32

    private static let libraryReady: Bool = ares_library_init(ARES_LIB_INIT_ALL) == ARES_SUCCESS

    /// A channel on its own thread; nil when c-ares cannot start (no usable configuration).
    init?(options: Options = Options()) {
        guard Self.libraryReady else { return nil }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        var settings = ares_options()
        settings.timeout = Int32(clamping: options.timeout.components.seconds * 1000 + options.timeout.components.attoseconds / 1_000_000_000_000_000)
        settings.tries = Int32(options.tries)
        var mask = ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES
        if !options.searchDomains {
            settings.ndomains = 0
            mask |= ARES_OPT_DOMAINS
        }
        var channel: ares_channel?
        guard ares_init_options(&channel, &settings, mask) == ARES_SUCCESS, let channel else {
            close(fds[0]); close(fds[1])
            return nil
        }
        if let servers = options.servers, ares_set_servers_ports_csv(channel, servers) != ARES_SUCCESS {
            ares_destroy(channel)
            close(fds[0]); close(fds[1])
            return nil
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        // The channel is only ever touched on this thread (c-ares channels are not thread-safe).
        let loop = ChannelLoop(channel: channel)
        let thread = Thread { [self] in run(loop) }
        thread.name = "WebImageServer.dns"
        thread.start()
    }

    func lookUp(_ host: String, answer: @escaping @Sendable (Result<DNSAnswer, DNSFailure>) -> Void) {
        // inet_aton's spellings (`127.1`, `0x7f000001`, `2130706433`) mean what they mean to
        // getaddrinfo; c-ares would send them to DNS as names.
        var numeric = in_addr()
        if inet_aton(host, &numeric) != 0 {
            return answer(.success(DNSAnswer(addresses: [.v4(UInt32(bigEndian: numeric.s_addr))], ttl: .zero)))
        }
        let accepted = pending.withLock { pending in
            guard !pending.closed else { return false }
            pending.queries.append(QueryContext(host: host, answer: answer))
            return true
        }
        guard accepted else { return answer(.failure(.failed("the resolver is closed"))) }
        wake()
    }

    /// Stops the loop thread; queries still running answer `failed`.
    func shutdown() {
        pending.withLock { $0.closed = true }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// The channel, owned by the loop thread.
    private final class ChannelLoop: Sendable {
        // No lock guards it: the channel is confined to the loop thread (made before it starts, used only on it).
        nonisolated(unsafe) let channel: ares_channel
        init(channel: ares_channel) { self.channel = channel }
    }

    private func run(_ loop: ChannelLoop) {
        let channel = loop.channel
        var sockets = [ares_socket_t](repeating: -1, count: Int(ARES_GETSOCK_MAXNUM))
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            let (queries, closed) = pending.withLock { pending in
                defer { pending.queries.removeAll() }
                return (pending.queries, pending.closed)
            }
            if closed {
                // Cancelled queries call back with ARES_EDESTRUCTION, so every caller is answered.
                ares_destroy(channel)
                for query in queries { query.answer(.failure(.failed("the resolver is closed"))) }
                close(wakeRead)
                close(wakeWrite)
                return
            }
            for query in queries { start(query, on: channel) }

            let bits = ares_getsock(channel, &sockets, ARES_GETSOCK_MAXNUM)
            var polled = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            for index in 0..<Int(ARES_GETSOCK_MAXNUM) {
                let readable = bits & (1 << index) != 0
                let writable = bits & (1 << (index + Int(ARES_GETSOCK_MAXNUM))) != 0
                guard readable || writable else { continue }
                polled.append(pollfd(fd: sockets[index], events: Int16((readable ? POLLIN : 0) | (writable ? POLLOUT : 0)), revents: 0))
            }
            var wait = timeval()
            let milliseconds: Int32 = ares_timeout(channel, nil, &wait).map { _ in
                Int32(clamping: Int(wait.tv_sec) * 1000 + (Int(wait.tv_usec) + 999) / 1000)
            } ?? -1
            _ = poll(&polled, nfds_t(polled.count), milliseconds)
            if polled[0].revents != 0 { while read(wakeRead, &drain, drain.count) > 0 {} }
            for entry in polled.dropFirst() {
                let readable = entry.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0
                let writable = entry.revents & Int16(POLLOUT) != 0
                if readable || writable {
                    ares_process_fd(channel, readable ? entry.fd : ARES_SOCKET_BAD, writable ? entry.fd : ARES_SOCKET_BAD)
                }
            }
            // Timeouts and retries.
            ares_process_fd(channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD)
        }
    }

    private func start(_ query: QueryContext, on channel: ares_channel) {
        var hints = ares_addrinfo_hints()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        let context = Unmanaged.passRetained(query).toOpaque()
        ares_getaddrinfo(channel, query.host, nil, &hints, { context, status, _, result in
            guard let context else { return }
            let query = Unmanaged<QueryContext>.fromOpaque(context).takeRetainedValue()
            defer { if let result { ares_freeaddrinfo(result) } }
            query.answer(CAresNameService.outcome(status: status, result: result))
        }, context)
    }

    private static func outcome(status: Int32, result: UnsafeMutablePointer<ares_addrinfo>?) -> Result<DNSAnswer, DNSFailure> {
        switch status {
        case ARES_SUCCESS:
            var addresses: [IPAddress] = []
            var ttl = Int32.max
            var node = result?.pointee.nodes
            while let current = node {
                if let sockaddr = current.pointee.ai_addr, let address = IPAddress(UnsafePointer(sockaddr)) {
                    if !addresses.contains(address) { addresses.append(address) }
                    ttl = min(ttl, max(0, current.pointee.ai_ttl))
                }
                node = current.pointee.ai_next
            }
            guard !addresses.isEmpty else { return .failure(.notFound) }
            return .success(DNSAnswer(addresses: addresses, ttl: .seconds(Int(ttl))))
        case ARES_ENOTFOUND, ARES_ENODATA, ARES_ENONAME:
            return .failure(.notFound)
        case ARES_ETIMEOUT:
            return .failure(.timedOut)
        default:
            return .failure(.failed(String(cString: ares_strerror(status))))
        }
    }

    /// One query's host and its caller, retained by c-ares until the callback.
    private final class QueryContext: Sendable {
        let host: String
        let answer: @Sendable (Result<DNSAnswer, DNSFailure>) -> Void
        init(host: String, answer: @escaping @Sendable (Result<DNSAnswer, DNSFailure>) -> Void) {
            self.host = host
            self.answer = answer
        }
    }
}
