// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "WebImage",
    products: [
        .library(name: "WebImage", targets: ["WebImage"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // System codecs. `scripts/bootstrap` installs the apt providers listed here.
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // The only hand-written C: setjmp traps so libjpeg/libpng errors never longjmp across Swift.
        .target(name: "CWebImageShims", dependencies: ["CJPEG", "CPNG"]),
        .target(
            name: "WebImage",
            dependencies: ["CWebImageShims", "CJPEG", "CPNG", "CGIF", "CWebP"]
        ),
        .executableTarget(
            name: "webimage",
            dependencies: [
                "WebImage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "WebImageTests",
            dependencies: ["WebImage"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
