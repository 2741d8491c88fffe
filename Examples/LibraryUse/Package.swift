// swift-tools-version:6.0
// The library guide's examples (docs/library.md) as another package uses Splice: by path (the script that
// builds them links the Splice checkout here as ../splice) or by URL:
//     .package(url: "https://example.org/splice.git", branch: "main")
import PackageDescription

let package = Package(
    name: "LibraryUse",
    dependencies: [
        .package(path: "../splice"),
    ],
    targets: [
        .executableTarget(name: "copy", dependencies: [.product(name: "Splice", package: "splice")]),
        .executableTarget(name: "trim", dependencies: [.product(name: "Splice", package: "splice")]),
        .executableTarget(name: "subtitle-writer", dependencies: [.product(name: "Splice", package: "splice")]),
        // Two articles' jobs as written for AVFoundation, with the import changed (docs/porting.md).
        .executableTarget(name: "background-music", dependencies: [.product(name: "SpliceAVFoundation", package: "splice")]),
        .executableTarget(name: "merge-recording", dependencies: [.product(name: "SpliceAVFoundation", package: "splice")]),
    ]
)
