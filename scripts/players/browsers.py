"""Chromium and Firefox, headless, playing a file from a page served on 127.0.0.1 (page.html),
their sound going to a private PulseAudio null sink."""

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

from media import FPS, decode, frame_code
from players import Playback

PAGE = Path(__file__).with_name("page.html")


class _Handler(SimpleHTTPRequestHandler):
    """Files with byte ranges (what a <video> asks for), the page, and the page's report."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.reports.put(json.loads(body or b"{}"))
        self.send_response(204)
        self.end_headers()

    def do_GET(self):
        if self.path.startswith("/page.html"):
            return self._send(PAGE.read_bytes(), "text/html")
        path = Path(self.translate_path(self.path))
        if not path.is_file():
            return self.send_error(404)
        data = path.read_bytes()
        kind = {".mkv": "video/x-matroska", ".webm": "video/webm"}.get(path.suffix, "video/mp4")
        ranged = self.headers.get("Range", "").replace("bytes=", "").split("-") if self.headers.get("Range") else None
        if ranged:
            start = int(ranged[0] or 0)
            end = int(ranged[1]) if ranged[1] else len(data) - 1
            return self._send(data[start:end + 1], kind, (start, end, len(data)))
        return self._send(data, kind)

    def _send(self, data, kind, span=None):
        self.send_response(206 if span else 200)
        self.send_header("Content-Type", kind)
        self.send_header("Accept-Ranges", "bytes")
        if span:
            self.send_header("Content-Range", f"bytes {span[0]}-{span[1]}/{span[2]}")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


class Browsers:
    """The server, the sound device and a profile folder, shared by every file played."""

    def __init__(self, folder: Path):
        self.tmp = Path(tempfile.mkdtemp(prefix="splice-players-"))
        self.folder = folder.resolve()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(folder)))
        self.server.reports = queue.Queue()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.env = dict(os.environ, HOME=str(self.tmp), XDG_RUNTIME_DIR=str(self.tmp),
                        PULSE_SERVER=f"unix:{self.tmp}/pulse.sock", MOZ_HEADLESS="1")
        self.pulse = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
             "--load=module-null-sink sink_name=null", f"--load=module-native-protocol-unix socket={self.tmp}/pulse.sock auth-anonymous=1"],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if (self.tmp / "pulse.sock").exists():
                break
            time.sleep(0.1)

    def close(self):
        self.server.shutdown()
        self.pulse.terminate()
        self.pulse.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _command(self, browser: str, url: str, profile: Path):
        if browser.startswith("chromium"):
            return ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--autoplay-policy=no-user-gesture-required", "--disable-background-media-suspend",
                    f"--user-data-dir={profile}", url]
        (profile / "user.js").write_text("\n".join(f'user_pref("{k}", {v});' for k, v in {
            "media.autoplay.default": 0, "media.autoplay.blocking_policy": 0,
            "browser.shell.checkDefaultBrowser": "false", "datareporting.policy.dataSubmissionEnabled": "false",
            "toolkit.telemetry.reportingpolicy.firstRun": "false", "browser.aboutwelcome.enabled": "false",
            "media.block-autoplay-until-in-foreground": "false"}.items()))
        return ["firefox-esr", "--headless", "--no-remote", "--profile", str(profile), url]

    def play(self, browser: str, path: Path, job) -> Playback:
        """Plays path, made by job; seeks to job's probes, and to any expected frame not seen."""
        expected = job.expected_frames()
        middles = [t + 0.5 / FPS for t, _ in expected]
        codes = [frame_code(frame, clip) for _, (clip, frame) in expected]
        seconds = job.duration
        profile = Path(tempfile.mkdtemp(dir=self.tmp))
        url = (f"http://127.0.0.1:{self.server.server_address[1]}/page.html?file={quote(str(path.resolve().relative_to(self.folder)))}"
               f"&probes={','.join(f'{t:.4f}' for t in job.probes())}&middles={','.join(f'{t:.4f}' for t in middles)}"
               f"&codes={','.join(map(str, codes))}")
        if browser == "chromium-mse":
            url += "&hls=1" if path.suffix == ".m3u8" else f"&mse={quote(mse_codecs(path))}"
        process = subprocess.Popen(self._command(browser, url, profile), env=self.env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            report = self.server.reports.get(timeout=60 + 3 * seconds)
        except queue.Empty:
            report = {"errors": [f"no report in {60 + 3 * seconds:.0f} s"], "frames": [], "tones": [], "probes": []}
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
            shutil.rmtree(profile, ignore_errors=True)
        if os.environ.get("PLAYERS_KEEP_REPORTS"):
            Path(os.environ["PLAYERS_KEEP_REPORTS"], f"{path.stem}-{browser}.json").write_text(json.dumps(report))
        return _playback(report, expected)


def mse_codecs(path: Path) -> str:
    """The codecs parameter of a fragmented MP4's tracks (RFC 6381): avc1.PPCCLL from each avcC
    (avc3 where the sample entry is), mp4a.40.2 where there is AAC."""
    data = path.read_bytes()
    header = data[:data.find(b"moof")] if b"moof" in data else data
    codecs = []
    at = header.find(b"avcC")
    if at >= 0:
        entry = "avc3" if b"avc3" in header else "avc1"
        codecs.append(f"{entry}.{header[at + 5]:02x}{header[at + 6]:02x}{header[at + 7]:02x}")
    if b"mp4a" in header:
        codecs.append("mp4a.40.2")
    return ",".join(codecs)


def _playback(report, expected) -> Playback:
    """Frames seen in real time, in order, each once; the expected frames not seen, found by
    seeking to their time, put in their place when shown there."""
    frames = []
    for t, value, *_ in report.get("frames", []):
        if not frames or frames[-1][1] != decode(value):
            frames.append((t, decode(value)))
    place = {code: t for t, code in expected}
    filled = [(t - 0.5 / FPS, decode(value)) for t, value in report.get("filled", [])]
    for t, code in filled:
        if code in place and code not in {c for _, c in frames}:
            at = next((i for i, (s, _) in enumerate(frames) if s > place[code]), len(frames))
            frames.insert(at, (place[code], code))
    duration = report.get("duration")
    return Playback(frames, None, duration if isinstance(duration, (int, float)) else None,
                    ended=bool(report.get("ended")), notes=list(report.get("errors", [])), timed=False,
                    remarks=([f"{len(filled)} frames identified by seeking"] if filled else [])
                    + ([f"{report['segments']} media segments appended"] if report.get("segments") else []),
                    probes=[(t, decode(v)) for t, v in report.get("probes", [])],
                    tones=[(t, i) for t, i in report.get("tones", [])])
