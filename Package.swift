// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Splice",
    products: [
        .library(name: "Splice", targets: ["Splice"]),
        .executable(name: "splice", targets: ["splice"]),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev"])]
        ),
        .target(name: "CSystem"),
        .target(name: "MediaCore", dependencies: ["CSystem"]),
        .target(name: "ISOBMFF", dependencies: ["MediaCore"]),
        .target(name: "FFmpegBridge", dependencies: ["CFFmpeg", "MediaCore"]),
        .target(name: "Splice", dependencies: ["MediaCore", "ISOBMFF", "FFmpegBridge"]),
        .executableTarget(name: "splice", dependencies: ["Splice"]),
        .executableTarget(name: "splice-bench", path: "Benchmarks/SpliceBench"),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore"]),
        .testTarget(name: "ISOBMFFTests", dependencies: ["ISOBMFF"]),
        .testTarget(name: "SpliceTests", dependencies: ["Splice", "ISOBMFF"]),
    ],
    swiftLanguageModes: [.v6]
)
