// swift-tools-version:6.0
// Fuzz targets (libFuzzer). Built by `make fuzz`:
//   swift build --package-path Fuzz -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// Each product is a libFuzzer binary: `Fuzz/.build/debug/FuzzBoxes Fuzz/corpus/boxes`.
import PackageDescription

let package = Package(
    name: "SpliceFuzz",
    dependencies: [.package(name: "Splice", path: "..")],
    targets: [
        .target(name: "FuzzSupport"),
        .executableTarget(name: "FuzzBoxes", dependencies: ["FuzzSupport", .product(name: "SpliceInternals", package: "Splice")]),
        .executableTarget(name: "FuzzSampleTables", dependencies: ["FuzzSupport", .product(name: "Splice", package: "Splice")]),
        .executableTarget(name: "FuzzSubtitles", dependencies: ["FuzzSupport", .product(name: "SpliceInternals", package: "Splice")]),
        .executableTarget(name: "FuzzCodecs", dependencies: ["FuzzSupport", .product(name: "SpliceInternals", package: "Splice")]),
        .executableTarget(name: "FuzzRemux", dependencies: ["FuzzSupport", .product(name: "Splice", package: "Splice"),
                                                            .product(name: "SpliceInternals", package: "Splice")]),
        .executableTarget(name: "FuzzMatroska", dependencies: ["FuzzSupport", .product(name: "SpliceInternals", package: "Splice")]),
        .executableTarget(name: "FuzzSampleEntries", dependencies: ["FuzzSupport", .product(name: "SpliceInternals", package: "Splice")]),
        .executableTarget(name: "FuzzWriter", dependencies: ["FuzzSupport", .product(name: "Splice", package: "Splice"),
                                                             .product(name: "SpliceInternals", package: "Splice")]),
        // The C interface (splice.h), as a C program calls it; with FUZZ_EXTREMES, the extremes sweep.
        .executableTarget(name: "FuzzCAPI", dependencies: ["FuzzSupport", .product(name: "SpliceCInterface", package: "Splice")]),
    ],
    swiftLanguageModes: [.v6]
)
