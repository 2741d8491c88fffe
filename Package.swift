// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Splice",
    products: [
        .library(name: "Splice", targets: ["Splice"]),
        // The lower layers, for the fuzz targets in Fuzz/ (a package of its own).
        .library(name: "SpliceInternals", targets: ["MediaCore", "ISOBMFF", "Subtitles"]),
        .executable(name: "splice", targets: ["splice"]),
    ],
    targets: [
        // FFmpeg's headers (libavformat-dev libavcodec-dev libavutil-dev). The libraries are not
        // linked: FFmpegLoader opens them on first use (see Sources/FFmpegLoader).
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev"])]
        ),
        .target(name: "FFmpegLoader", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CSystem"),
        .target(name: "MediaCore", dependencies: ["CSystem"]),
        .target(name: "ISOBMFF", dependencies: ["MediaCore"]),
        .target(name: "Subtitles", dependencies: ["MediaCore"]),
        .target(name: "FFmpegBridge", dependencies: ["CFFmpeg", "FFmpegLoader", "MediaCore"]),
        .target(name: "Splice", dependencies: ["MediaCore", "ISOBMFF", "Subtitles", "FFmpegBridge"]),
        .executableTarget(name: "splice", dependencies: ["Splice", "Subtitles"]),
        .executableTarget(name: "splice-bench", path: "Benchmarks/SpliceBench"),
        .executableTarget(name: "SubtitleWriter", dependencies: ["Splice"], path: "Samples/SubtitleWriter"),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore"]),
        .testTarget(name: "ISOBMFFTests", dependencies: ["ISOBMFF"], exclude: ["Regressions"]),
        .testTarget(name: "SubtitlesTests", dependencies: ["Subtitles"], exclude: ["Regressions"]),
        .testTarget(name: "SpliceTests", dependencies: ["Splice", "ISOBMFF"]),
    ],
    swiftLanguageModes: [.v6]
)
