// swift-tools-version: 6.1
// The packages some fuzz targets link (scripts/fuzz builds this into Fuzz/.build/packages, release, no sanitizers).
import PackageDescription

let package = Package(
    name: "FuzzPackages",
    products: [.library(name: "FuzzPackages", type: .static, targets: ["FuzzPackages"])],
    dependencies: [
        // The versions come from the root Package.resolved, which scripts/fuzz copies beside this file.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "FuzzPackages",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ]
)
