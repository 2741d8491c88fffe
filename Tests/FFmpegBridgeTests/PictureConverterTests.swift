import Foundation
import MediaCore
@testable import FFmpegBridge
import Testing

/// A converter with nothing to convert hands back the caller's pixels in a frame of its own:
/// what its user sets on the result (an encoder sets the time) never reaches the caller's frame.
@Suite("PictureConverter")
struct PictureConverterTests {
    @Test func nothingToConvertGivesAFrameOfItsOwn() throws {
        let source = try Frame.allocate(format: PixelBuffer.PixelFormat.yuv420p.avFormat, width: 64, height: 48)
        source.presentationTimestamp = 7
        let converter = try PictureConverter(pixelFormat: .yuv420p)
        let out = try converter.convert(source)
        #expect(out !== source)
        #expect(out.plane(0).base == source.plane(0).base, "the pixels were copied, not shared")
        out.presentationTimestamp = 99
        #expect(source.presentationTimestamp == 7)
        // A conversion that does something makes new pixels, of course.
        let scaled = try PictureConverter(pixelFormat: .yuv420p, size: (width: 32, height: 24)).convert(source)
        #expect(scaled.plane(0).base != source.plane(0).base)
        #expect(source.presentationTimestamp == 7)
    }
}
