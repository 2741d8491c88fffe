import Foundation
import Testing
@testable import MediaCore

/// `OutputFile`'s writes put every byte where it belongs, whatever their size: writes are cut
/// into calls of at most `SystemCall.maximumWrite` bytes, a gathered piece longer than that
/// goes in parts, and a short piece after it starts where it ended.
@Suite("Output file")
struct OutputFileTests {
    /// Bytes that differ at every position (a misplaced piece shows).
    static func pattern(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    @Test func gatheredAndPlainWritesKeepEveryByteInOrder() throws {
        let path = NSTemporaryDirectory() + "splice-outputfile-\(UUID().uuidString).bin"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let limit = SystemCall.maximumWrite
        // Small pieces, one just over a call's limit, one of several calls, pieces that add up
        // past the limit, and more than 64 pieces (several gathers).
        var pieces = [OutputFileTests.pattern(100, seed: 1), OutputFileTests.pattern(limit + 1, seed: 2),
                      OutputFileTests.pattern(3 * limit + 17, seed: 3), OutputFileTests.pattern(limit - 5, seed: 4),
                      OutputFileTests.pattern(10, seed: 5)]
        pieces += (0..<70).map { OutputFileTests.pattern(9_000 + $0, seed: UInt8($0)) }
        let plain = OutputFileTests.pattern(2 * limit + 3, seed: 9)
        let file = try OutputFile(destination: path, replacing: false)
        try file.write(gathering: pieces)
        try file.write(plain)
        let expected = pieces.reduce(Data(), +) + plain
        #expect(file.size == UInt64(expected.count))
        try file.commit()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == expected)
    }
}
