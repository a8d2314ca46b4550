import Foundation
import Testing
@testable import WebImageServer

@Suite("Thumbor paths")
struct ThumborPathTests {
    @Test("every part in its place: trim, crop, fit-in, flipped sizes, alignment, smart, filters, source with slashes and query")
    func everyPart() throws {
        let path = try ThumborPath(parsing: "/unsafe/trim:bottom-right:10/10x20:300x400/adaptive-fit-in/-300x-0/left/bottom/smart/filters:quality(80):format(webp):watermark(http://x/y.png,10,10,50)/example.com:8080/a/b.jpg?v=1")
        #expect(path.authorization == .unsafe)
        #expect(path.trim == ThumborPath.Trim(corner: .bottomRight, tolerance: 10))
        #expect(path.crop == ThumborPath.CropBox(left: 10, top: 20, right: 300, bottom: 400))
        #expect(path.fitIn == .adaptive)
        #expect(path.width == .pixels(300) && path.flipHorizontally)
        #expect(path.height == .pixels(0) && path.flipVertically)
        #expect(path.horizontalAlign == .left && path.verticalAlign == .bottom && path.smart)
        #expect(path.filters.map(\.name) == ["quality", "format", "watermark"])
        #expect(path.filters[2].arguments == ["http://x/y.png", "10", "10", "50"])
        #expect(path.source == "example.com:8080/a/b.jpg?v=1")
    }

    @Test("optional parts may be left out; a source that looks like a size stays the source")
    func optionalParts() throws {
        let bare = try ThumborPath(parsing: "unsafe/example.com/300x200.jpg")
        #expect(bare.width == .pixels(0) && bare.height == .pixels(0) && bare.fitIn == nil)
        #expect(bare.source == "example.com/300x200.jpg")
        let lone = try ThumborPath(parsing: "/unsafe/300x200")
        #expect(lone.source == "300x200")
        let orig = try ThumborPath(parsing: "/unsafe/origx100/full-fit-in/a.png")
        #expect(orig.width == .original && orig.height == .pixels(100))
        #expect(orig.fitIn == nil && orig.source == "full-fit-in/a.png", "fit-in comes before the size, as in thumbor")
        #expect(try ThumborPath(parsing: "/unsafe/http%3A%2F%2Fexample.com%2Fa%20b.jpg").source == "http://example.com/a b.jpg")
    }

    @Test("no signature and no unsafe, no source, or a malformed filter list are errors")
    func errors() {
        #expect(throws: ThumborPathError.unsigned) { try ThumborPath(parsing: "/300x200/example.com/a.jpg") }
        #expect(throws: ThumborPathError.missingSource) { try ThumborPath(parsing: "/unsafe/") }
        #expect(throws: ThumborPathError.missingSource) { try ThumborPath(parsing: "/unsafe/300x200/") }
        #expect(throws: ThumborPathError.self) { try ThumborPath(parsing: "/unsafe/filters:quality(80):(x)/a.jpg") }
    }

    @Test("the canonical options ignore the authorisation and spell defaults out")
    func canonical() throws {
        let signed = try ThumborPath(parsing: "/0123456789012345678901234567/300x0/filters:quality(80)/a.jpg")
        let unsafe = try ThumborPath(parsing: "/unsafe/300x/center/middle/filters:quality( 80 )/a.jpg")
        #expect(signed.canonicalOptions == unsafe.canonicalOptions)
        #expect(signed.canonicalOptions == "300x0/center/middle/filters:quality(80)")
    }

    @Test("libthumbor's URLs parse to the options they were made with, and their signatures verify byte for byte")
    func libthumborURLs() async throws {
        let urls = try await Libthumbor.urls(key: "my-secret", [
            "dict(width=300, height=200, image_url='127.0.0.1:8000/a b.jpg?x=1', smart=True, filters=['quality(80)', 'format(webp)'])",
            "dict(width=300, height=200, image_url='http://example.com/a.jpg', fit_in=True, crop=((10, 20), (30, 40)), halign='left', valign='top')",
            "dict(width=120, height=80, image_url='example.com/img.png', flip=True, flop=True, trim=True, full_fit_in=True)",
            "dict(image_url='example.com/img.png', meta=True)",
        ])
        try #require(urls.count == 4)
        let signer = URLSigner(keys: ["old-key", "my-secret"])
        for url in urls {
            let path = try ThumborPath(parsing: url)
            guard case .signature(let signature) = path.authorization else {
                Issue.record("no signature in \(url)")
                continue
            }
            #expect(signer.isValid(signature, for: path.signedPart), "\(url)")
            #expect(!URLSigner(keys: ["other"]).isValid(signature, for: path.signedPart))
            #expect(URLSigner(keys: ["my-secret"]).signature(for: path.signedPart) == signature)
        }
        let first = try ThumborPath(parsing: urls[0])
        #expect(first.width == .pixels(300) && first.height == .pixels(200) && first.smart)
        #expect(first.filters == [ThumborFilter(name: "quality", arguments: ["80"]), ThumborFilter(name: "format", arguments: ["webp"])])
        #expect(first.source == "127.0.0.1:8000/a b.jpg?x=1")
        let second = try ThumborPath(parsing: urls[1])
        #expect(second.crop == ThumborPath.CropBox(left: 10, top: 20, right: 30, bottom: 40))
        #expect(second.fitIn == .fitIn && second.horizontalAlign == .left && second.verticalAlign == .top)
        let third = try ThumborPath(parsing: urls[2])
        #expect(third.trim != nil && third.fitIn == .full && third.flipHorizontally && third.flipVertically)
        #expect(third.width == .pixels(120) && third.height == .pixels(80))
        #expect(try ThumborPath(parsing: urls[3]).meta)
    }

    @Test("a signature for one path does not sign another; tampering with any byte fails")
    func tampering() throws {
        let signer = URLSigner(keys: ["k"])
        let part = "300x200/example.com/a.jpg"
        let signature = try #require(signer.signature(for: part))
        #expect(signature.count == 28)
        #expect(signer.isValid(signature, for: part))
        #expect(!signer.isValid(signature, for: "300x201/example.com/a.jpg"))
        #expect(!signer.isValid(String(signature.dropLast()) + "A", for: part))
        #expect(!URLSigner(keys: []).isValid(signature, for: part))
    }

    @Test("the canonical path parses back to the same request: a decoded source that looks like an option, a combining mark after a delimiter, an empty argument list (fuzzing found each)",
          arguments: ["/unsafe/%73mart/x.jpg", "/unsafe/%66ilters:a()/x.jpg", "/unsafe/top/\u{301}x.jpg", "/unsafe/smart/\u{301}x.jpg",
                      "/unsafe/filters:f(x\u{600} )/a.jpg", "/unsafe/filters:f( \u{301}x)/a.jpg", "/unsafe/filters:f( ):g()/a.jpg",
                      "/unsafe/10x20/left/top/smart/filters:q(1,2)/example.com/a%2Fb.jpg?x=%25"])
    func canonicalRoundTrip(_ text: String) throws {
        let path = try ThumborPath(parsing: text)
        let again = try ThumborPath(parsing: path.canonicalPath)
        #expect(again.canonicalOptions == path.canonicalOptions && again.source == path.source && again.filters == path.filters)
        #expect(again.smart == path.smart && again.verticalAlign == path.verticalAlign)
    }

    @Test("delimiters are Unicode scalars: a / or ( followed by a combining mark still ends its part; f( ) has no arguments")
    func scalarDelimiters() throws {
        let aligned = try ThumborPath(parsing: "/unsafe/top/\u{301}x.jpg")
        #expect(aligned.verticalAlign == .top && aligned.source == "\u{301}x.jpg")
        let filtered = try ThumborPath(parsing: "/unsafe/filters:f(x\u{600}):g( )/a.jpg")
        #expect(filtered.filters == [ThumborFilter(name: "f", arguments: ["x\u{600}"]), ThumborFilter(name: "g")])
        #expect(filtered.source == "a.jpg")
        #expect(try ThumborPath(parsing: "/unsafe/%73mart/x.jpg").source == "smart/x.jpg")
    }
}
