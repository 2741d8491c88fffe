// swift-tools-version:6.0
// The four jobs of the articles Splice was built from, written for AVFoundation and ported with
// their imports changed (SpliceAVFoundation): the composition demo, background music, a
// recording merged under a video, and Apple's subtitle writer. Another package uses Splice so:
// by path (scripts/check-examples links the Splice checkout here as ../splice), or by URL:
//     .package(url: "https://example.org/splice.git", branch: "main")
import PackageDescription

let package = Package(
    name: "Examples",
    dependencies: [
        .package(path: "../splice"),
    ],
    targets: [
        .executableTarget(name: "composition-demo", dependencies: [.product(name: "SpliceAVFoundation", package: "splice")]),
        .executableTarget(name: "background-music", dependencies: [.product(name: "SpliceAVFoundation", package: "splice")]),
        .executableTarget(name: "merge-recording", dependencies: [.product(name: "SpliceAVFoundation", package: "splice")]),
        .executableTarget(name: "subtitle-writer", dependencies: [.product(name: "SpliceAVFoundation", package: "splice")]),
    ]
)
