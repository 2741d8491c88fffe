import MediaCore

/// A protected track's auxiliary information, gathered from its sample table and fragments
/// into one `SampleEncryption` in decode order, so that a copy can write it again with its own
/// offsets (the source's `senc`/`saiz`/`saio` are not copied as they are).
extension Track {
    /// Reads the `senc`/`saiz` (and PIFF `uuid` senc) of the sample table and of every fragment
    /// of a track with a protected sample entry, and takes them out of the boxes kept
    /// byte-exact. Samples of a clear entry (a clear lead: a fragment whose `tfhd` names an
    /// unprotected entry) have no auxiliary information: an entry of 0 bytes each, as `saiz`
    /// says of them, and they are counted in `clearSampleCount`. What cannot be carried is said
    /// in `encryptionProblem`.
    /// - Parameter defaultDescriptionIndex: `trex`'s, for fragments whose `tfhd` names none.
    mutating func resolveEncryption(defaultDescriptionIndex: UInt32? = nil) {
        let schemes = sampleTable.sampleEntries.map { ProtectionScheme(sampleEntry: $0.bytes, mediaType: mediaType) }
        let protected = Set(schemes.indices.filter { schemes[$0] != nil }.map { UInt32(clamping: $0 + 1) })
        guard let scheme = schemes.lazy.compactMap({ $0 }).first else { return }
        protection = scheme
        var all = SampleEncryption(flags: 0)
        var problem: String?
        var clear = 0
        func take(_ boxes: inout [RawBox], samples: Int, at path: String, isClear: Bool = false) throws {
            defer { boxes.removeAll { Track.isAuxiliaryInformation($0) } }
            let sizes = try boxes.first { $0.type == "saiz" }.map { try SampleEncryption.parseSaiz(ByteReader(Array($0.payload), path: path + "/saiz")) }
            guard let senc = boxes.first(where: { $0.type == "senc" || Track.isPIFFSampleEncryption($0) }) else {
                if isClear {
                    clear += samples
                    for _ in 0..<samples { all.append([UInt8]()[...]) }      // clear: no auxiliary information
                    return
                }
                if samples > 0, scheme.perSampleIVSize > 0 || sizes != nil {
                    problem = problem ?? "its per-sample IVs are not in a 'senc' box (\(path)), which Splice cannot carry"
                }
                for _ in 0..<samples { all.append([UInt8]()[...]) }          // a constant IV: nothing per sample
                return
            }
            let payload = Array(senc.payload)        // (a uuid box's payload starts after its extended type)
            let parsed = try SampleEncryption.parseSenc(ByteReader(payload, path: path + "/senc"), sizes: sizes,
                                                        ivSize: scheme.perSampleIVSize, expectedCount: samples)
            all.append(contentsOf: parsed)
        }
        if sampleTable.sampleCount > 0, let saio = sampleTable.otherBoxes.first(where: { $0.type == "saio" }),
           let saiz = sampleTable.otherBoxes.first(where: { $0.type == "saiz" }) {
            let path = "trak[\(trackID)]/mdia/minf/stbl"
            auxiliaryInformationLocation = try? AuxiliaryInformationLocation(
                sizes: SampleEncryption.parseSaiz(ByteReader(Array(saiz.payload), path: path + "/saiz")),
                offsets: SampleEncryption.parseSaio(ByteReader(Array(saio.payload), path: path + "/saio")))
        }
        // Damaged auxiliary information makes the track uncopyable, not the file unreadable.
        do {
            let byDescription = sampleTable.sampleCountsByDescription()
            let stblClear = !byDescription.keys.contains { protected.contains($0) }
            try take(&sampleTable.otherBoxes, samples: sampleTable.sampleCount, at: "trak[\(trackID)]/mdia/minf/stbl", isClear: stblClear)
            if !stblClear { clear += byDescription.filter { !protected.contains($0.key) }.values.reduce(0, +) }
            for i in fragments.indices {
                let index = fragments[i].sampleDescriptionIndex ?? defaultDescriptionIndex ?? 1
                try take(&fragments[i].otherBoxes, samples: fragments[i].sampleCount, at: "moof@\(fragments[i].moofOffset)/traf[\(trackID)]",
                         isClear: !protected.contains(index))
            }
        } catch {
            problem = problem ?? "its encryption information is damaged: \((error as? MediaError)?.description ?? "\(error)")"
        }
        clearSampleCount = clear
        if let problem {
            encryptionProblem = problem
        } else if all.data.isEmpty == false || all.sampleCount > 0 {
            encryption = all
        }
    }

    static func isAuxiliaryInformation(_ box: RawBox) -> Bool {
        box.type == "senc" || box.type == "saiz" || box.type == "saio" || isPIFFSampleEncryption(box)
    }

    static func isPIFFSampleEncryption(_ box: RawBox) -> Bool {
        guard box.type == "uuid" else { return false }
        var r = ByteReader(box.bytes)
        return (try? BoxHeader.parse(&r, available: UInt64(clamping: box.bytes.count), allowToEnd: false))?.userType == SampleEncryption.piffSampleEncryption
    }
}

/// Where `saiz` and `saio` say a track's auxiliary information is.
public struct AuxiliaryInformationLocation: Sendable, Hashable {
    public var sizes: [UInt8]
    public var offsets: [UInt64]

    /// The entries there, read as a player reads them; nil when they are not one run.
    public func read(from file: some RandomAccessBytes) throws -> SampleEncryption? {
        try SampleEncryption.read(sizes: sizes, offsets: offsets, from: file)
    }
}
