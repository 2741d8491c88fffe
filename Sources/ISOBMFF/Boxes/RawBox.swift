import MediaCore

/// A box kept byte-exact (header included), so that a round trip loses nothing.
public struct RawBox: Sendable, Hashable {
    public var type: FourCC
    /// The whole box: header and payload.
    public var bytes: [UInt8]

    public init(type: FourCC, bytes: [UInt8]) {
        self.type = type
        self.bytes = bytes
    }

    /// The raw box whose payload `payload` reads (header re-read from just before it).
    init(header: BoxHeader, payload: ByteReader) {
        let start = payload.position - header.headerSize
        self.type = header.type
        self.bytes = Array(payload.bytes[start..<payload.end])
    }

    /// The payload, without the header.
    public var payload: ArraySlice<UInt8> {
        var r = ByteReader(bytes)
        guard let h = try? BoxHeader.parse(&r, available: UInt64(clamping: bytes.count), allowToEnd: true) else { return [] }
        return bytes[h.headerSize...]
    }
}
