// swift-tools-version:6.0
// The four jobs of the articles Splice was built from, written for AVFoundation and ported with
// their imports changed (SpliceAVFoundation): the composition demo, background music, a
// recording merged under a video, and Apple's subtitle writer. Another package uses Splice so,
// whatever the checkout's directory is called: by path (scripts/check-examples links the
// Splice checkout here as ../splice), or by URL:
//     .package(url: "https://example.org/splice.git", branch: "main")   // then package: "splice"
//
// Ports/ holds programs written for macOS (`import AVFoundation`, `import CoreMedia`), as they
// are on Apple platforms. scripts/check-examples copies each into .ported/ with those import
// lines changed to `import SpliceAVFoundation` — nothing else — and they are built here as
// Swift 5 programs, the language mode such code is written in.
import Foundation
import PackageDescription

let splice: Target.Dependency = .product(name: "SpliceAVFoundation", package: "Splice")
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let ported = (try? FileManager.default.contentsOfDirectory(atPath: here.appendingPathComponent(".ported").path)) ?? []

let package = Package(
    name: "Examples",
    dependencies: [
        .package(name: "Splice", path: "../splice"),
    ],
    targets: [
        .executableTarget(name: "composition-demo", dependencies: [splice]),
        .executableTarget(name: "background-music", dependencies: [splice]),
        .executableTarget(name: "merge-recording", dependencies: [splice]),
        .executableTarget(name: "subtitle-writer", dependencies: [splice]),
    ] + ported.sorted().map { name in
        .executableTarget(name: "port-\(name)", dependencies: [splice], path: ".ported/\(name)", swiftSettings: [.swiftLanguageMode(.v5)])
    }
)
