// swift-tools-version: 6.2
// Decode benchmarks for WebImage with package-benchmark (ordo-one/benchmark). A separate package so
// the library itself does not depend on the benchmark tooling.
//
//   Tools/harness/fetch-photos                                   # once: the photos live in ../../.photos
//   cd Tools/Benchmarks && swift package benchmark --target DecodeBenchmarks
//   cd Tools/Benchmarks && swift package benchmark --target TransformBenchmarks   # resize 4000×3000
//   cd Tools/Benchmarks && swift package benchmark --target CacheBenchmarks       # memory/disk cache vs baselines
//   cd Tools/Benchmarks && swift package benchmark --target ManagerBenchmarks     # loadImage memory hits
//
// The benchmark package's own Package.swift names the "MallocInterposer" trait explicitly here:
// its default traits also pull in swift-runtime-interposer, which is not needed (nor available) here.
import PackageDescription

// SwiftPM names a path dependency after its folder, which is whatever the checkout is called.
let parentIdentity = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "main")

/// One benchmark executable: Benchmarks/<name>/, linking WebImage and the benchmark library.
func benchmarkTarget(_ name: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: [
            .product(name: "WebImage", package: parentIdentity),
            .product(name: "Benchmark", package: "benchmark"),
        ],
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "WebImageBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        benchmarkTarget("DecodeBenchmarks"),
        benchmarkTarget("TransformBenchmarks"),
        benchmarkTarget("CacheBenchmarks"),
        benchmarkTarget("ManagerBenchmarks"),
    ],
    swiftLanguageModes: [.v6]
)
