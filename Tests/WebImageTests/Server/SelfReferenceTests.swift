import Foundation
import Testing
@testable import WebImageServer

@Suite("webimage serve: never a source of its own")
struct SelfReferenceTests {
    @Test("a source naming the server's own address and port is refused before any request; loopback origins on other ports still serve")
    func ownAddress() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            #expect(try await harness.get(harness.unsafe("10x10", "/a.png")).status == 200)
            for own in ["127.0.0.1:\(harness.port)", "localhost:\(harness.port)", "[::ffff:127.0.0.1]:\(harness.port)"] {
                let nested = "/unsafe/10x10/\(own)/unsafe/10x10/\(own)/healthz"
                let reply = try await harness.get("/unsafe/10x10/\(own)/unsafe/10x10/ORIGIN/a.png")
                #expect(reply.status == 403, "\(own): \(reply.status)")
                #expect(try await harness.get(nested).status == 403)
                #expect(!String(decoding: reply.body, as: UTF8.self).contains("127.0.0.1"), "the body names no address")
            }
            #expect(harness.origin.requestCount("/a.png") == 1)
        }
    }

    @Test("a redirect to the server itself is refused too")
    func redirectToItself() async throws {
        try await withImageServer { harness in
            harness.origin.route("/loop", .redirect(to: "http://127.0.0.1:\(harness.port)/unsafe/10x10/ORIGIN/a.png"))
            let reply = try await harness.get(harness.unsafe("10x10", "/loop"))
            #expect(reply.status == 403)
        }
    }

    @Test("source requests carry the mark, and an image request carrying it is refused with 508 and a body that says nothing of the server")
    func mark() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            #expect(try await harness.get(harness.unsafe("10x10", "/a.png")).status == 200)
            let sent = try #require(harness.origin.requests.first { $0.path == "/a.png" })
            #expect(sent.header("via") == SourceRequestMark.value)
            for via in ["1.1 webimage", "1.0 cdn, 1.1 WebImage", "HTTP/1.1 webimage (nginx)"] {
                let looped = try await harness.get(harness.unsafe("12x12", "/a.png"), headers: [("Via", via)])
                #expect(looped.status == 508, "\(via)")
                let body = String(decoding: looped.body, as: UTF8.self)
                #expect(!body.contains("127.0.0.1") && !body.contains("Via") && body.count < 80, "\(body)")
            }
            #expect(try await harness.get(harness.unsafe("12x12", "/a.png"), headers: [("Via", "1.1 varnish, 1.1 webimage-cdn")]).status == 200)
            #expect(try await harness.get("/healthz", headers: [("Via", "1.1 webimage")]).status == 200)
            #expect(harness.origin.requestCount("/a.png") == 1)
        }
    }

    @Test("a wildcard listener is reached by loopback and every interface address on its port, and by nothing on another port")
    func wildcardListener() throws {
        let serving = ServingAddresses()
        serving.add(try #require(IPAddress("0.0.0.0")), port: 8080)
        for text in ["127.0.0.1", "127.0.0.53", "::1", "::ffff:127.0.0.1", "0.0.0.0"] {
            #expect(serving.contains(try #require(IPAddress(text)), port: 8080), "\(text)")
            #expect(!serving.contains(try #require(IPAddress(text)), port: 8081), "\(text) on another port")
        }
        for address in ServingAddresses.interfaceAddresses() { #expect(serving.contains(address, port: 8080), "\(address)") }
        #expect(!serving.contains(try #require(IPAddress("93.184.216.34")), port: 8080))

        let specific = ServingAddresses()
        specific.add(try #require(IPAddress("127.0.0.1")), port: 8080)
        #expect(specific.contains(try #require(IPAddress("::ffff:127.0.0.1")), port: 8080))
        #expect(!specific.contains(try #require(IPAddress("127.0.0.2")), port: 8080))
    }

    @Test("the resolver refuses its server's own address:port and only that")
    func resolverRefusesItself() async throws {
        var resolver = SourceResolver(addressPolicy: AddressPolicy(allowsLoopback: true)) { _ in [IPAddress("127.0.0.1")!] }
        resolver.servingAddresses = ServingAddresses()
        resolver.servingAddresses?.add(IPAddress("0.0.0.0")!, port: 8080)
        await #expect(throws: SourceRefusal.selfReference(IPAddress("127.0.0.1")!, 8080)) {
            try await resolver.resolve(URL(string: "http://images.test:8080/a.png")!)
        }
        #expect(try await resolver.resolve(URL(string: "http://images.test:8081/a.png")!).address == IPAddress("127.0.0.1"))
        resolver.servingAddresses?.add(IPAddress("::")!, port: 80)
        await #expect(throws: SourceRefusal.self) { try await resolver.resolve(URL(string: "http://images.test/a.png")!) }
    }
}

@Suite("webimage serve: purge by any spelling of the source host")
struct PurgeSpellingTests {
    @Test("DELETE /purge?url= with the host in upper case, with a root dot or both removes what the plain spelling made",
          arguments: ["PUBLIC.test", "public.test.", "Public.TEST.", "public.test"])
    func spellings(_ spelling: String) async throws {
        try await withImageServer({ $0.purgeToken = "t0ken" }, lookUp: { _ in [IPAddress("127.0.0.1")!] }) { harness in
            harness.origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            let port = harness.origin.port
            for width in [10, 20] { #expect(try await harness.get("/unsafe/\(width)x0/public.test:\(port)/a.jpg").status == 200) }
            #expect(harness.origin.requestCount("/a.jpg") == 1)
            let purged = try await harness.delete("/purge?url=\(spelling):\(port)/a.jpg", headers: [("Authorization", "Bearer t0ken")])
            #expect(purged.status == 200 && String(decoding: purged.body, as: UTF8.self) == "{\"purged\":2}\n", "\(spelling)")
            #expect(try await harness.get("/unsafe/20x0/public.test:\(port)/a.jpg").status == 200)
            #expect(harness.origin.requestCount("/a.jpg") == 2, "source and variant were both gone")
        }
    }

    @Test("a variant asked by another spelling of the host is the same variant")
    func oneKey() async throws {
        try await withImageServer(lookUp: { _ in [IPAddress("127.0.0.1")!] }) { harness in
            harness.origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            let port = harness.origin.port
            for host in ["public.test", "PUBLIC.TEST", "public.test."] {
                let reply = try await harness.get("/unsafe/10x0/\(host):\(port)/a.jpg")
                #expect(reply.status == 200)
            }
            #expect(harness.origin.requestCount("/a.jpg") == 1)
        }
        #expect(try SourceURL.parse("HTTPS://Img.Example.COM./a.jpg?X=1").absoluteString == "https://img.example.com/a.jpg?X=1")
        #expect(try SourceURL.parse("[::FFFF:7F00:1]:8080/a.jpg").absoluteString == "http://[::ffff:7f00:1]:8080/a.jpg")
    }
}
