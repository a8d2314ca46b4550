// swift-tools-version: 6.2
// The workshop beside the product: `webimage-bench` (in-process timings and the HTTP floor clients
// the harness scripts in harness/ drive). A package of its own so the shipped `webimage` CLI links
// none of it. `Tools/build` builds it (release, as the harness measures) and prints its path.
import PackageDescription

// SwiftPM names a path dependency after its folder, which is whatever the checkout is called.
let productIdentity = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "main")

let package = Package(
    name: "WebImageTools",
    products: [
        .executable(name: "webimage-bench", targets: ["WebImageBench"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "WebImageBench",
            dependencies: [
                .product(name: "WebImage", package: productIdentity),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `download --client ahc|nio`: HTTP clients alone, the floor under ImageDownloader.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
