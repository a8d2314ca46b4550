import Foundation
import Testing
@testable import WebImageServer

@Suite("nginx config")
struct NginxConfigTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("routing by source: consistent hash on the cut-out source, keep-alive, failover, X-Upstream; the edge cache only when asked")
    func directives() throws {
        let plain = try NginxConfig(upstreams: ["127.0.0.1:8081", "10.0.0.2:8080", "[::1]:8082"], listen: "127.0.0.1:8080").text
        for directive in ["hash $webimage_route consistent;", "server 10.0.0.2:8080 max_fails=2 fail_timeout=10s;", "server [::1]:8082 ",
                          "keepalive 32;", "proxy_next_upstream error timeout http_503;", "proxy_next_upstream_tries 3;",
                          "proxy_http_version 1.1;", "proxy_set_header Connection \"\";", "add_header X-Upstream $upstream_addr always;",
                          "map $request_uri $webimage_source {", "map $arg_url $webimage_purge_source {", "/purge $webimage_purge_source;",
                          "listen 127.0.0.1:8080;"] {
            #expect(plain.contains(directive), "missing: \(directive)")
        }
        #expect(!plain.contains("proxy_cache"))
        #expect(!plain.contains("http_502 "), "a 502 is the origin failing: retrying it on every instance fetches it N times")
        let cached = try NginxConfig(upstreams: ["127.0.0.1:8081"], edgeCacheDirectory: "/var/cache/nginx/webimage").text
        #expect(cached.contains("proxy_cache_path /var/cache/nginx/webimage ") && cached.contains("proxy_cache webimage_edge;"))
        // `hash` must come before `keepalive` in an upstream (nginx's rule for balancers).
        #expect(plain.range(of: "hash $webimage_route")!.lowerBound < plain.range(of: "keepalive")!.lowerBound)
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
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let runner = NginxRunner(directory: directory)
        for edge in [nil, directory.appendingPathComponent("edge").path] {
            let site = try NginxConfig(upstreams: ["127.0.0.1:8081", "127.0.0.1:8082"], listen: "127.0.0.1:8080", edgeCacheDirectory: edge).text
            let config = try runner.writeConfig(site: site)
            let result = try await onOwnThread { try runner.test(config) }
            #expect(result.status == 0, "nginx -t: \(result.stderr)")
        }
    }

    @Test("nginx's own PCRE cuts out the key the parser's source gives, for the spec paths, 1,500 generated ones and purge URLs",
          .enabled(if: NginxRunner.isAvailable))
    func nginxAgreesWithTheParser() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let runner = NginxRunner(directory: directory)
        let port = try NginxRunner.freePort()
        // The generated site, plus a server that answers with the key nginx routes by.
        let site = try NginxConfig(upstreams: ["127.0.0.1:9"], listen: "127.0.0.1:\(try NginxRunner.freePort())").text
        let config = try runner.writeConfig(site: site, extra: "server { listen 127.0.0.1:\(port); location / { return 200 \"$webimage_route\"; } }")
        let nginx = try runner.start(config)
        defer { nginx.terminate(); nginx.waitUntilExit() }
        let targets = try ThumborPathCorpus.fromSpecs().filter { !$0.contains(where: { $0 == " " || $0 == "#" || $0.isNewline }) }
            + ThumborPathCorpus.generated(count: 1500, seed: 0xC0FFEE, wire: true)
        let purges = ["http://example.com/a.jpg?v=1", "example.com/a.jpg", "HTTPS:/example.com/a.jpg", "http%3A%2F%2Fexample.com/a.jpg"]
        let outcome = try await onOwnThread { () -> (answered: Int, disagreements: [String]) in
            var connection: RawHTTPConnection?
            for _ in 0..<500 where connection == nil {
                connection = try? RawHTTPConnection(port: port)
                if connection == nil { usleep(10_000) }
            }
            guard var client = connection else { throw RawHTTPError.closed }
            var answered = 0
            var disagreements: [String] = []
            for (target, expected) in targets.map({ ($0, (try? SourceRoutePatternTests.routeKey($0)) ?? $0) })
                + purges.map({ ("/purge?url=" + $0, "example.com/a.jpg" + ($0.hasSuffix("?v=1") ? "?v=1" : "")) }) {
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
        #expect(outcome.answered >= (targets.count + purges.count) * 8 / 10, "nginx answered \(outcome.answered) of \(targets.count + purges.count)")
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
