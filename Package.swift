// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Splice",
    products: [
        .library(name: "Splice", targets: ["Splice"]),
        // AVFoundation's and CoreMedia's spellings over Splice, for code ported from Apple platforms.
        .library(name: "SpliceAVFoundation", targets: ["SpliceAVFoundation"]),
        // The lower layers, for the fuzz targets in Fuzz/ (a package of its own).
        .library(name: "SpliceInternals", targets: ["MediaCore", "ISOBMFF", "Matroska", "Subtitles"]),
        .executable(name: "splice", targets: ["splice"]),
        // The C library (libsplice.so, include/splice.h): built and installed by `make install`.
        .library(name: "SpliceC", type: .dynamic, targets: ["SpliceC"]),
        // The same, linked statically, for the fuzz target that drives it (Fuzz/).
        .library(name: "SpliceCInterface", targets: ["CSplice", "SpliceC"]),
    ],
    targets: [
        // FFmpeg's headers (libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libswscale-dev libavfilter-dev). The libraries are not
        // linked: FFmpegLoader opens them on first use (see Sources/FFmpegLoader).
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev", "libswscale-dev", "libavfilter-dev"])]
        ),
        .target(name: "FFmpegLoader", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CSystem"),
        .target(name: "MediaCore", dependencies: ["CSystem"]),
        .target(name: "ISOBMFF", dependencies: ["MediaCore"]),
        .target(name: "Matroska", dependencies: ["MediaCore"]),
        .target(name: "Subtitles", dependencies: ["MediaCore"]),
        .target(name: "FFmpegBridge", dependencies: ["CFFmpeg", "FFmpegLoader", "MediaCore"]),
        .target(name: "Splice", dependencies: ["MediaCore", "ISOBMFF", "Matroska", "Subtitles", "FFmpegBridge"]),
        .target(name: "SpliceAVFoundation", dependencies: ["Splice"]),
        // The subcommands, run by `splice` in the terminal and by the C library in a caller's host.
        .target(name: "SpliceCLI", dependencies: ["CSplice", "Splice"]),
        .executableTarget(name: "splice", dependencies: ["Splice", "SpliceCLI"]),
        // splice.h (the version its macros say is Splice's), and its calls written in Swift
        // (@_cdecl) over SpliceCLI.
        .target(name: "CSplice"),
        .target(name: "SpliceC", dependencies: ["CSplice", "Splice", "SpliceCLI"]),
        .executableTarget(name: "splice-bench", dependencies: ["Splice"], path: "Benchmarks/SpliceBench"),
        // Shared by the test targets: running tools (ffmpeg, ffprobe, the built splice) and the fixtures they make.
        .target(name: "TestSupport", dependencies: ["MediaCore", "ISOBMFF"], path: "Tests/TestSupport"),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore"]),
        .testTarget(name: "ISOBMFFTests", dependencies: ["ISOBMFF", "TestSupport"], exclude: ["Regressions"]),
        .testTarget(name: "MatroskaTests", dependencies: ["Matroska", "TestSupport"]),
        .testTarget(name: "SubtitlesTests", dependencies: ["Subtitles"], exclude: ["Regressions"]),
        .testTarget(name: "FFmpegBridgeTests", dependencies: ["FFmpegBridge", "TestSupport"]),
        .testTarget(name: "SpliceTests", dependencies: ["Splice", "ISOBMFF", "TestSupport"], exclude: ["Regressions"]),
        .testTarget(name: "SpliceAVFoundationTests", dependencies: ["SpliceAVFoundation", "TestSupport"]),
        // splice.h's calls, made as a C program makes them (the installed library from C: scripts/check-c-api).
        .testTarget(name: "CAPITests", dependencies: ["CSplice", "SpliceC", "TestSupport"]),
        // A container registered from outside Splice (`FileType.register`), as a program would.
        .testTarget(name: "RegisteredFileTypeTests", dependencies: ["Splice", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
