// ISO-BMFF parsing on arbitrary bytes (in memory): the box tree, the movie structure and its
// sample tables walked to the end, read as it is and salvaged. Any input must parse or give a MediaError — never a
// crash, a hang or an allocation sized by the data. (FuzzSampleTables does Asset loading
// and reading from files.)
import Foundation
import FuzzSupport
import ISOBMFF
import MediaCore

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? Box.parseAll(bytes)
    for salvage in [false, true] {
        guard let movie = try? MovieFile(file: InMemoryBytes(bytes), salvage: salvage) else { continue }
        walk(movie)
    }
    return 0
}

func walk(_ movie: MovieFile) {
    for track in movie.tracks {
        var it = SampleIterator(track: track, trackExtends: movie.trackExtends[track.trackID])
        var n = 0
        while let s = it.next(), n < 1_000_000 {
            _ = s.presentationTime
            n += 1
        }
        _ = MovieWriter.movieBox(header: movie.movieHeader, tracks: movie.tracks, otherBoxes: movie.otherMovieBoxes)
    }
}

runFuzzer(fuzz)
