import Foundation

/// The compositing rows: a watermark over 30 s of 1080p against ffmpeg's `overlay` with the same
/// x264 settings (highestQuality: `medium`, CRF 18, AAC copied), and 100 1080p PNG images into a
/// video (one per frame at 30 fps) against ffmpeg's image2 input with the same settings. Runs
/// alternate; wall and CPU time, peak RSS.
func compositingRows(media: URL, source: String, binary: String, runs: Int) {
    let logo = media.appendingPathComponent("logo.png").path
    if !FileManager.default.fileExists(atPath: logo) {
        shell("ffmpeg -nostdin -v error -y -f lavfi -i \"color=c=white:size=320x120,format=rgba,geq=r='255*X/320':g=200:b=80:a='if(lt(Y,20),0,180)'\" -frames:v 1 \(logo)")
    }
    let out = media.appendingPathComponent("watermarked.mp4").path
    print("\n" + pad("watermark (30 s 1080p)", 24) + pad("tool", 30) + pad("seconds", 9) + pad("CPU s", 9) + pad("×ffmpeg", 9) + "RSS MB")
    var ff: [Measurement] = [], sp: [Measurement] = [], base: [Measurement] = []
    let rounds = baseline == nil ? max(1, min(runs, 2)) : runs
    let watermark = [binary, "export", source, "-o", out, "--preset", "highestQuality", "--watermark", logo]
    for _ in 0..<rounds {
        unlink(out)
        ff.append(measure(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-i", logo, "-filter_complex", "[0:v][1:v]overlay=W-w-16:H-h-16",
                           "-map", "0:a", "-c:v", "libx264", "-preset", "medium", "-crf", "18", "-c:a", "copy", out]))
        unlink(out)
        sp.append(measure(watermark))
        if let b = onBaseline(watermark) { unlink(out); base.append(measure(b)) }
    }
    unlink(out)
    report("watermark (30 s 1080p)", [("ffmpeg overlay, same x264", middle(ff)), ("splice export --watermark", middle(sp))])
    baselineRow("watermark (30 s 1080p)", base, against: middle(sp))

    let images = media.appendingPathComponent("images")
    if !FileManager.default.fileExists(atPath: images.appendingPathComponent("img100.png").path) {
        try? FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        shell("ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30 -frames:v 100 -start_number 1 \(images.path)/img%03d.png")
    }
    let files = (1...100).map { images.appendingPathComponent(String(format: "img%03d.png", $0)).path }
    let slides = media.appendingPathComponent("slides.mp4").path
    print("\n" + pad("images (100 PNG 1080p)", 24) + pad("tool", 30) + pad("seconds", 9) + pad("CPU s", 9) + pad("×ffmpeg", 9) + "RSS MB")
    shell("cat \(images.path)/*.png > /dev/null")
    ff = []; sp = []; base = []
    let slideshow = [binary, "images"] + files + ["-o", slides, "--fps", "30", "--preset", "highestQuality"]
    for _ in 0..<rounds {
        unlink(slides)
        ff.append(measure(["ffmpeg", "-nostdin", "-v", "error", "-y", "-framerate", "30", "-i", "\(images.path)/img%03d.png",
                           "-c:v", "libx264", "-preset", "medium", "-crf", "18", "-pix_fmt", "yuv420p", slides]))
        unlink(slides)
        sp.append(measure(slideshow))
        if let b = onBaseline(slideshow) { unlink(slides); base.append(measure(b)) }
    }
    unlink(slides)
    report("images (100 PNG 1080p)", [("ffmpeg image2, same x264", middle(ff)), ("splice images --fps 30", middle(sp))])
    baselineRow("images (100 PNG 1080p)", base, against: middle(sp))
}

private func report(_ label: String, _ rows: [(String, Measurement)]) {
    let base = rows[0].1.seconds
    for (tool, m) in rows {
        print(pad(label, 24) + pad(tool, 30) + pad(fmt(m.seconds, 2), 9) + pad(fmt(m.cpuSeconds, 2), 9)
              + pad(fmt(m.seconds / base), 9) + fmt(Double(m.maxRSSKiB) / 1024, 1))
    }
}

/// The HDR row: 5 s of 1080p HEVC PQ (HDR10 metadata, MaxCLL 1000) exported with the 1920x1080
/// preset — tone-mapped to SDR BT.709 — against ffmpeg's zscale + tonemap chain with the same
/// operator and parameters and the same x264 settings (`medium`, CRF 20). Runs alternate.
func toneMappingRows(media: URL, binary: String, runs: Int) {
    let source = media.appendingPathComponent("hdr10-1080p.mp4").path
    if !FileManager.default.fileExists(atPath: source) {
        shell("ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=5 -vf "
              + "zscale=tin=bt709:pin=bt709:min=bt709:rin=full:t=smpte2084:p=bt2020:m=bt2020nc:r=tv:npl=203,format=yuv420p10le "
              + "-c:v libx265 -preset ultrafast -x265-params log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:"
              + "master-display='G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)':max-cll=1000,400 "
              + "-color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -tag:v hvc1 \(source)")
    }
    let out = media.appendingPathComponent("tone-mapped.mp4").path
    let label = "tone map (5 s 1080p PQ)"
    print("\n" + pad(label, 24) + pad("tool", 30) + pad("seconds", 9) + pad("CPU s", 9) + pad("×ffmpeg", 9) + "RSS MB")
    let chain = "zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,tonemap=mobius:param=0.95:desat=0:peak=\(1000.0 / 203),"
        + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
    var ff: [Measurement] = [], sp: [Measurement] = []
    let export = [binary, "export", source, "-o", out, "--preset", "1920x1080"]
    for _ in 0..<max(1, min(runs, 3)) {
        unlink(out)
        ff.append(measure(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-vf", chain, "-c:v", "libx264", "-preset", "medium",
                           "-crf", "20", out]))
        unlink(out)
        sp.append(measure(export))
    }
    unlink(out)
    report(label, [("ffmpeg zscale+tonemap, x264", middle(ff)), ("splice export 1920x1080", middle(sp))])
}
