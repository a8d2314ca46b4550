import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx on a generated config, in a temporary prefix (its own pid, logs and temp files),
/// and a raw HTTP/1.1 client that sends a request target byte for byte (no URL type rewrites it).
struct NginxRunner {
    static let executable = URL(fileURLWithPath: "/usr/sbin/nginx")
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    let directory: URL

    /// A main config holding `site` and `extra` inside `http {}`, everything under ``directory``.
    func writeConfig(site: String, extra: String = "") throws -> URL {
        for name in ["temp", "logs"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let sitePath = directory.appendingPathComponent("site.conf")
        try site.write(to: sitePath, atomically: true, encoding: .utf8)
        let temp = directory.appendingPathComponent("temp").path
        let main = """
            daemon off;
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/logs/error.log warn;
            \(getuid() == 0 ? "user root;" : "")
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(temp)/body;
                proxy_temp_path \(temp)/proxy;
                fastcgi_temp_path \(temp)/fastcgi;
                uwsgi_temp_path \(temp)/uwsgi;
                scgi_temp_path \(temp)/scgi;
                include \(sitePath.path);
                \(extra)
            }
            """
        let path = directory.appendingPathComponent("nginx.conf")
        try main.write(to: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `nginx -t` on `config`: its exit status and what it said.
    func test(_ config: URL) throws -> CLIRunner.Result {
        try CLIRunner.run(Self.executable, ["-t", "-p", directory.path, "-c", config.path])
    }

    /// Starts nginx on `config`; stop it with `terminate()`.
    func start(_ config: URL) throws -> Process {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["-p", directory.path, "-c", config.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A loopback port free right now (bound, then let go).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw RawHTTPError.socket(errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

enum RawHTTPError: Error { case socket(Int32), closed, malformed(String) }

extension NginxRunner {
    /// A blocking TCP socket connected to 127.0.0.1:`port`.
    static func connectLoopback(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(fd)
            throw RawHTTPError.socket(errno)
        }
        return fd
    }
}

/// One keep-alive connection sending `GET target` exactly as given; answers with a Content-Length.
final class RawHTTPConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        fd = try NginxRunner.connectLoopback(port: port)
        // A peer that never answers (another process on a port that raced) fails the read, not the suite.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Status and body of `GET target`.
    func get(_ target: String) throws -> (status: Int, body: Data) {
        let request = Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw RawHTTPError.socket(errno) }
            sent += count
        }
        let headEnd = try readUntil(Array("\r\n\r\n".utf8))
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        let lines = head.components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { throw RawHTTPError.malformed(head) }
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
        }.first ?? 0
        while buffer.count < length { try fill() }
        let body = Data(buffer[..<length])
        buffer.removeFirst(length)
        return (status, body)
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        while true {
            if buffer.count >= marker.count {
                for start in 0...(buffer.count - marker.count) where buffer[start..<(start + marker.count)].elementsEqual(marker) { return start }
            }
            try fill()
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw count == 0 ? RawHTTPError.closed : RawHTTPError.socket(errno) }
        buffer += chunk[..<count]
    }
}
