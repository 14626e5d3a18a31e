// swift-tools-version: 6.0
import PackageDescription

// Built and tested on Linux only (Glibc, libcurl, libzip, libpng from the
// distribution): no platform is claimed that nothing checks. The libc calls
// that would differ elsewhere are in Sources/AssetCache/Platform/LibC.swift.
let package = Package(
    name: "AssetCache",
    products: [
        .library(name: "AssetCache", targets: ["AssetCache"]),
        .library(name: "InAppDelivery", targets: ["InAppDelivery"]),
        .library(name: "FixtureServer", targets: ["FixtureServer"]),
        .executable(name: "prefetch", targets: ["prefetch"]),
        .executable(name: "fixture-server", targets: ["fixture-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        // HTTPS in the fixture server, so tests cover private CAs over real TLS.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        // run --metrics-file: swift-metrics is the API, swift-prometheus renders the text format.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `swift package generate-documentation`: the DocC catalogs and Snippets/.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Typed wrappers for libcurl's variadic calls; nothing else lives in C.
        .target(name: "CCurl"),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        // Owns libpng's setjmp/longjmp error handling, which Swift cannot express.
        .target(name: "CPNG", linkerSettings: [.linkedLibrary("png16")]),
        // The same for libjpeg; giflib and libwebp are plain C APIs, called from Swift.
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        // No pkg-config name: giflib ships a .pc file only in some distributions.
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // The fixture server's `gzip=1` (libzip-dev and libpng-dev pull zlib1g-dev in).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // syncfs(2) and statfs(2), which Swift's Glibc module does not show.
        .target(name: "CFileSync"),
        .target(
            name: "AssetCache",
            dependencies: [
                "CCurl", "CZip", "CPNG", "CJPEG", "CGIF", "CWebP", "CFileSync",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // Decides what a user sees; the cache is only its readiness source.
        .target(name: "InAppDelivery", dependencies: ["AssetCache"]),
        .target(
            name: "FixtureServer",
            dependencies: [
                "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "prefetch",
            dependencies: [
                "AssetCache", "InAppDelivery",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "fixture-server",
            dependencies: [
                "FixtureServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // An app that embeds the library; EndToEndTests runs it against FixtureServer.
        .executableTarget(name: "EmbedPrefetch", dependencies: ["AssetCache"], path: "Examples/EmbedPrefetch"),
        .testTarget(
            name: "AssetCacheTests",
            dependencies: ["AssetCache", "InAppDelivery", "FixtureServer", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "FixtureServerTests", dependencies: ["FixtureServer", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "InAppDeliveryTests", dependencies: ["InAppDelivery", "AssetCache"]),
        .testTarget(name: "EndToEndTests", dependencies: ["AssetCache", "FixtureServer", "prefetch", "fixture-server", "EmbedPrefetch"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (Fuzz/run.sh), only when ASSETCACHE_FUZZ is set: `swift build`
// and `swift test` never see them. Each file exports LLVMFuzzerTestOneInput and
// has no main of its own (-parse-as-library): libFuzzer's main drives it.
if Context.environment["ASSETCACHE_FUZZ"] != nil {
    for name in ["FuzzManifest", "FuzzJSONDifferential", "FuzzArchive", "FuzzImage"] {
        package.targets.append(.executableTarget(
            name: name,
            dependencies: ["AssetCache"],
            path: "Fuzz/\(name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ))
    }
}

// bench/callgrind.sh: a synchronous stand-in for `prefetch plan`, only when
// ASSETCACHE_BENCH is set.
if Context.environment["ASSETCACHE_BENCH"] != nil {
    package.targets.append(.executableTarget(name: "BenchPlan", dependencies: ["AssetCache"], path: "bench/BenchPlan"))
}
