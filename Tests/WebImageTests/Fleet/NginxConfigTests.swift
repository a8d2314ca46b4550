import Foundation
import Testing
@testable import WebImageServer
#if canImport(Glibc)
import Glibc
#endif

@Suite("nginx config")
struct NginxConfigTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("routing by source: consistent hash on the cut-out source, keep-alive, failover, X-Upstream; the edge cache only when asked")
    func directives() throws {
        let plain = try NginxConfig(upstreams: ["127.0.0.1:8081", "10.0.0.2:8080", "[::1]:8082"], listen: "127.0.0.1:8080").text
        for directive in ["hash $webimage_source consistent;", "server 10.0.0.2:8080 max_fails=2 fail_timeout=10s;", "server [::1]:8082 ",
                          "keepalive 32;", "keepalive_timeout 30s;", "proxy_next_upstream error timeout http_503;",
                          "proxy_http_version 1.1;", "proxy_set_header Connection \"\";", "add_header X-Upstream $upstream_addr always;",
                          "map $request_uri $webimage_source {", "listen 127.0.0.1:8080;"] {
            #expect(plain.contains(directive), "missing: \(directive)")
        }
        #expect(!plain.contains("proxy_cache"))
        #expect(!plain.contains("http_502 "), "a 502 is the origin failing: retrying it on every instance fetches it N times")
        let cached = try NginxConfig(upstreams: ["127.0.0.1:8081"], edgeCacheDirectory: "/var/cache/nginx/webimage").text
        #expect(cached.contains("proxy_cache_path /var/cache/nginx/webimage ") && cached.contains("proxy_cache webimage_edge;"))
        // `hash` must come before `keepalive` in an upstream (nginx's rule for balancers).
        #expect(plain.range(of: "hash $webimage_source")!.lowerBound < plain.range(of: "keepalive")!.lowerBound)
    }

    @Test("the public face: images and health only — /metrics and /purge refused by nginx, GET alone proxied, no cookie passed on")
    func publicFaceOnly() throws {
        let site = try NginxConfig(upstreams: ["127.0.0.1:8081"]).text
        let refusal = try #require(site.range(of: "location ~ ^/(metrics|purge)/*$ {\n        return 404;\n    }"), "\(site)")
        // Before `location /` (regex locations win over the prefix either way; this keeps it readable).
        #expect(refusal.lowerBound < site.range(of: "location / {")!.lowerBound)
        #expect(site.contains("limit_except GET {\n            deny all;\n        }"))
        #expect(site.contains("proxy_set_header Cookie \"\";"))
        #expect(!site.contains("$arg_url") && !site.contains("/purge $"), "no purge routing: purge is on the admin listeners")
        #expect(site.components(separatedBy: "proxy_pass").count == 2, "one proxying location")
    }

    @Test("retry budget: a request is passed to one more instance at most, and only within 5 s of its start")
    func retryBudget() throws {
        let site = try NginxConfig(upstreams: ["127.0.0.1:8081", "127.0.0.1:8082", "127.0.0.1:8083"]).text
        #expect(site.contains("proxy_next_upstream error timeout http_503;"))
        #expect(site.contains("proxy_next_upstream_tries 2;"))
        #expect(site.contains("proxy_next_upstream_timeout 5s;"))
        #expect(site.contains("proxy_connect_timeout 2s;"))
        // The one rule: no status but draining's 503 (a 502 is the origin failing), never a non-idempotent request.
        #expect(site.split(separator: "\n").filter { $0.contains("proxy_next_upstream ") }
            == ["        proxy_next_upstream error timeout http_503;"])
    }

    @Test("under nginx: /metrics and /purge never reach an instance, other methods are refused, health and images do",
          .enabled(if: NginxRunner.isAvailable))
    func nginxKeepsAdminRoutesOff() async throws {
        let directory = try TemporaryFolder.make("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let runner = NginxRunner(directory: directory)
        let instance = try NginxRunner.freePort(), port = try NginxRunner.freePort()
        let site = try NginxConfig(upstreams: ["127.0.0.1:\(instance)"], listen: "127.0.0.1:\(port)").text
        let config = try runner.writeConfig(
            site: site, extra: "server { listen 127.0.0.1:\(instance); location / { return 200 \"instance $request_method $uri\"; } }")
        let nginx = try runner.start(config)
        defer { nginx.terminate(); nginx.waitUntilExit() }
        let replies = try await onOwnThread { () -> [String: (Int, String)] in
            var replies: [String: (Int, String)] = [:]
            for request in ["GET /healthz", "GET /unsafe/10x10/example.com/a.jpg", "GET /metrics", "GET /metrics/", "GET //metrics",
                            "GET /%6Detrics", "GET /metrics?x=1", "GET /purge?url=example.com/a.jpg", "DELETE /purge?url=example.com/a.jpg",
                            "DELETE /unsafe/10x10/example.com/a.jpg", "POST /healthz"] {
                let parts = request.split(separator: " ", maxSplits: 1).map(String.init)
                replies[request] = try Self.ask(port: port, method: parts[0], target: parts[1])
            }
            return replies
        }
        #expect(replies["GET /healthz"]?.0 == 200 && replies["GET /healthz"]?.1 == "instance GET /healthz")
        #expect(replies["GET /unsafe/10x10/example.com/a.jpg"]?.0 == 200)
        for (request, reply) in replies where !["GET /healthz", "GET /unsafe/10x10/example.com/a.jpg"].contains(request) {
            #expect(!reply.1.hasPrefix("instance") && [403, 404].contains(reply.0), "\(request): \(reply.0) \(reply.1.prefix(60))")
        }
    }

    @Test("under nginx: a request that kills instances is tried on two at most; a dead instance's requests go to the next",
          .enabled(if: NginxRunner.isAvailable))
    func nginxRetryBudget() async throws {
        let directory = try TemporaryFolder.make("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let runner = NginxRunner(directory: directory)
        // "Killed" instances: nginx's 444 closes the connection without an answer, as a crash would.
        let killers = try (0..<3).map { _ in try NginxRunner.freePort() }
        let live = try NginxRunner.freePort(), dead = try NginxRunner.freePort()
        let killingSite = try NginxConfig(upstreams: killers.map { "127.0.0.1:\($0)" }, listen: "127.0.0.1:\(try NginxRunner.freePort())")
        let failingOver = try NginxConfig(upstreams: ["127.0.0.1:\(dead)", "127.0.0.1:\(live)"], listen: "127.0.0.1:\(try NginxRunner.freePort())")
        // Two sites in one nginx: the second's upstream and map need names of their own.
        let second = failingOver.text.replacingOccurrences(of: "webimage", with: "webimage_failover")
        let logs = killers.map { directory.appendingPathComponent("killer-\($0).log") }
        let extra = zip(killers, logs).map { "server { listen 127.0.0.1:\($0); access_log \($1.path); location / { return 444; } }" }
            .joined(separator: "\n") + "\nserver { listen 127.0.0.1:\(live); location / { return 200 \"live\"; } }\n" + second
        let config = try runner.writeConfig(site: killingSite.text, extra: extra)
        let tested = try runner.test(config)
        try #require(tested.status == 0, "nginx -t: \(tested.stderr)")
        let nginx = try runner.start(config)
        defer { nginx.terminate(); nginx.waitUntilExit() }
        let killingPort = try #require(Int(killingSite.listen.split(separator: ":").last!))
        let failoverPort = try #require(Int(failingOver.listen.split(separator: ":").last!))
        let (killed, failover) = try await onOwnThread { () -> (Int, [Int]) in
            let killed = try Self.ask(port: killingPort, method: "GET", target: "/unsafe/10x10/example.com/killer.jpg").0
            let failover = try (0..<20).map { try Self.ask(port: failoverPort, method: "GET", target: "/unsafe/10x10/example.com/\($0).jpg").0 }
            return (killed, failover)
        }
        #expect(killed == 502)
        // nginx writes a request's access-log line as it ends, before it answers: the lines are there.
        let tries = logs.map { (try? String(contentsOf: $0, encoding: .utf8))?.split(separator: "\n").count ?? 0 }
        #expect(tries.reduce(0, +) == 2, "instances that got the killer request: \(tries)")
        #expect(failover.allSatisfy { $0 == 200 }, "\(failover)")
    }

    /// One request on a fresh connection to nginx: status and body (nginx answers with a Content-Length, or closes).
    static func ask(port: Int, method: String, target: String) throws -> (Int, String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = NginxRunner.loopback(port: port)
        var connected = false
        for _ in 0..<500 where !connected {  // nginx may still be starting
            connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if !connected { usleep(10_000) }
        }
        guard connected else { throw RawHTTPError.socket(errno) }
        let request = Array("\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += chunk[..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let status = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { throw RawHTTPError.malformed(text) }
        return (status, text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test("what could break out of the config, or is no HOST:PORT, is refused", arguments: [
        "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "a b:80", "x:80;", "x:80}", "$host:80", "::1:80", "[::1]", "host/x:80", "",
    ])
    func refusesBadUpstreams(_ upstream: String) {
        #expect(throws: NginxConfigError.badUpstream(upstream)) { try NginxConfig(upstreams: [upstream]) }
    }

    @Test("no upstream, a bad listen or a relative or unquotable edge cache directory is refused")
    func refusesBadSettings() {
        #expect(throws: NginxConfigError.noUpstreams) { try NginxConfig(upstreams: []) }
        #expect(throws: NginxConfigError.badListen("80 default_server")) { try NginxConfig(upstreams: ["a:1"], listen: "80 default_server") }
        #expect(throws: NginxConfigError.badEdgeCacheDirectory("cache")) { try NginxConfig(upstreams: ["a:1"], edgeCacheDirectory: "cache") }
        #expect(throws: NginxConfigError.badEdgeCacheDirectory("/a b")) { try NginxConfig(upstreams: ["a:1"], edgeCacheDirectory: "/a b") }
    }

    @Test("nginx -t accepts the generated site, with and without the edge cache", .enabled(if: NginxRunner.isAvailable))
    func nginxAccepts() async throws {
        let directory = try TemporaryFolder.make("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let runner = NginxRunner(directory: directory)
        for edge in [nil, directory.appendingPathComponent("edge").path] {
            let site = try NginxConfig(upstreams: ["127.0.0.1:8081", "127.0.0.1:8082"], listen: "127.0.0.1:8080", edgeCacheDirectory: edge).text
            let config = try runner.writeConfig(site: site)
            let result = try await onOwnThread { try runner.test(config) }
            #expect(result.status == 0, "nginx -t: \(result.stderr)")
        }
    }

    @Test("nginx's own PCRE cuts out the key the parser's source gives, for the spec paths and 1,500 generated ones",
          .enabled(if: NginxRunner.isAvailable))
    func nginxAgreesWithTheParser() async throws {
        let directory = try TemporaryFolder.make("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let runner = NginxRunner(directory: directory)
        let port = try NginxRunner.freePort()
        // The generated site, plus a server that answers with the key nginx routes by.
        let site = try NginxConfig(upstreams: ["127.0.0.1:9"], listen: "127.0.0.1:\(try NginxRunner.freePort())").text
        let config = try runner.writeConfig(site: site, extra: "server { listen 127.0.0.1:\(port); location / { return 200 \"$webimage_source\"; } }")
        let nginx = try runner.start(config)
        defer { nginx.terminate(); nginx.waitUntilExit() }
        let targets = try ThumborPathCorpus.fromSpecs().filter { !$0.contains(where: { $0 == " " || $0 == "#" || $0.isNewline }) }
            + ThumborPathCorpus.generated(count: 1500, seed: 0xC0FFEE, wire: true)
        let outcome = try await onOwnThread { () -> (answered: Int, disagreements: [String]) in
            var connection: RawHTTPConnection?
            for _ in 0..<500 where connection == nil {
                connection = try? RawHTTPConnection(port: port)
                if connection == nil { usleep(10_000) }
            }
            guard var client = connection else { throw RawHTTPError.closed }
            var answered = 0
            var disagreements: [String] = []
            for (target, expected) in targets.map({ ($0, (try? SourceRoutePatternTests.routeKey($0)) ?? $0) }) {
                let reply: (status: Int, body: Data)
                do {
                    reply = try client.get(target)
                } catch {
                    client = try RawHTTPConnection(port: port)  // nginx closes after a 400
                    continue
                }
                guard reply.status == 200 else { continue }  // nginx refused the target itself (a bad %-escape)
                answered += 1
                let key = String(decoding: reply.body, as: UTF8.self)
                if key != expected { disagreements.append("\(target.debugDescription): nginx \(key.debugDescription), ICU \(expected.debugDescription)") }
            }
            return (answered, disagreements)
        }
        #expect(outcome.disagreements.isEmpty, "\(outcome.disagreements.prefix(20).joined(separator: "\n"))")
        #expect(outcome.answered >= targets.count * 8 / 10, "nginx answered \(outcome.answered) of \(targets.count)")
        // ICU agrees with the parser (SourceRoutePatternTests), so nginx does too, for what nginx takes.
        #expect(try SourceRoutePatternTests.expectAgreement(targets) > 500)
    }

    @Test("deploy/nginx/webimage.conf is what its own header command prints today")
    func deployedSiteIsCurrent() async throws {
        let file = Self.repository.appendingPathComponent("deploy/nginx/webimage.conf")
        let text = try String(contentsOf: file, encoding: .utf8)
        let command = try #require(text.split(separator: "\n").first { $0.hasPrefix("#   webimage serve ") })
        let arguments = command.dropFirst("#   webimage ".count).split(separator: " ").map(String.init)
        let result = try await CLIRunner.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == text, "deploy/nginx/webimage.conf is stale: run deploy/nginx/regenerate")
    }
}
