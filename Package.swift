// swift-tools-version: 6.2
// 6.2 is the oldest compiler that builds WebImage: the loading and cache code uses
// `nonisolated(nonsending)` (SE-0461, new in Swift 6.2). .ci/run prints the compiler it used.
import PackageDescription

let package = Package(
    name: "WebImage",
    products: [
        .library(name: "WebImage", targets: ["WebImage"]),
        .library(name: "WebImageServer", targets: ["WebImageServer"]),
        // A shared cache tier on Redis (a RESP client on SwiftNIO), for WebImage apps and the server fleet.
        .library(name: "WebImageRedis", targets: ["WebImageRedis"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Loading: HTTP on AsyncHTTPClient; NIO for the lean HTTP/1.1 client, the transport error
        // types and the tests' loopback origin.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // ImageManager instrumentation: quiet logs and no-op metrics until the app opts in.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Deque for the download and work queues (FIFO and LIFO at both ends in O(1)).
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // DownloadRequest/DownloadResponse speak swift-http-types, as AsyncHTTPClient, Hummingbird and OpenAPI apps do.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // WebImageServer: Hummingbird serves, swift-crypto signs (thumbor's HMAC-SHA1).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `swift package generate-documentation` (scripts/docs) for Sources/WebImage/WebImage.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System codecs. `scripts/bootstrap` installs the apt providers listed here.
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        // libdeflate inflates a whole PNG's image data at once for the common non-interlaced case.
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // AVIF through Debian's libavif 0.11 (dav1d/libgav1 decode, aom/rav1e/SVT encode).
        // HEIF/HEIC through Debian's libheif 1.15 (HEVC by libde265). JPEG XL decode through
        // Debian's libjxl 0.7. Headers only: CCodecLibraries opens the three on first use.
        .systemLibrary(name: "CAVIF", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CHEIF", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"])]),
        .target(name: "CCodecLibraries", linkerSettings: [.linkedLibrary("dl")]),
        // ICC profiles to sRGB through Little CMS 2.
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        // The server's DNS: c-ares gives lookups a timeout without a thread each, and TTLs.
        .systemLibrary(name: "CAres", pkgConfig: "libcares", providers: [.apt(["libc-ares-dev"])]),
        // Hand-written C: setjmp traps so libjpeg/libpng errors never longjmp across Swift, and the
        // PNG fast path's row unfiltering (libdeflate inflates, errors come back as codes).
        .target(name: "CWebImageShims", dependencies: ["CJPEG", "CPNG", "CDeflate"]),
        // The resampler's filter loops: C so one source builds for each x86-64 vector width
        // (chosen at run time), the same float operations on all of them.
        .target(name: "CWebImageResampling"),
        .target(
            name: "WebImage",
            dependencies: [
                "CWebImageShims", "CWebImageResampling", "CJPEG", "CPNG", "CDeflate", "CGIF", "CWebP", "CAVIF", "CHEIF", "CJXL", "CCodecLibraries", "CLCMS2",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The shared Redis tier: RESP2 on SwiftNIO (no Redis client is in the package mirror; measured
        // against hiredis in BENCHMARKS.md), rediss:// through NIOSSL, metrics through swift-metrics.
        .target(
            name: "WebImageRedis",
            dependencies: [
                "WebImage",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The image server: thumbor's URL syntax on the WebImage pipeline, embeddable in any Hummingbird app.
        .target(
            name: "WebImageServer",
            dependencies: [
                "WebImage",
                "WebImageRedis",
                "CAres",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The connection guard: an HTTP/1 child channel of its own, and the decoded parts it watches.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .executableTarget(
            name: "webimage",
            dependencies: [
                "WebImage",
                "WebImageServer",
                "WebImageRedis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WebImageTests",
            dependencies: [
                "WebImage",
                "WebImageServer",
                "WebImageRedis",
                // A downloader on the app's own HTTPClient.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The response parser's differential fuzz runs NIO's decoder in an EmbeddedChannel.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                // The fault matrix's TLS origin (a self-signed certificate on loopback).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
