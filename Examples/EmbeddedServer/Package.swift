// swift-tools-version: 6.2
// An application that embeds WebImage's image server: its own Hummingbird app, its own route, its
// own source loader and result cache. Package.resolved pins the versions WebImage itself resolves.
import PackageDescription

let package = Package(
    name: "EmbeddedServer",
    dependencies: [
        .package(name: "WebImage", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "EmbeddedServer",
            dependencies: [
                .product(name: "WebImage", package: "WebImage"),
                .product(name: "WebImageServer", package: "WebImage"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
