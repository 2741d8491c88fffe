# Splice — two commands: `make demo` and `make test`.
# Both install the Debian packages they need when missing (apt-get; sudo only when not root).

SWIFT ?= swift
export PATH := $(PATH):/opt/swift/usr/bin

# Build needs FFmpeg's -dev packages; tests use the ffmpeg CLI, mediainfo and python3 (scripts/cenc-boxes) as independent tools, strace to count flushes.
BUILD_PACKAGES := pkg-config libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libswscale-dev libavfilter-dev
TEST_PACKAGES := $(BUILD_PACKAGES) ffmpeg mediainfo mkvtoolnix time strace python3 gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav mpv
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: c-api demo test python-test wheel python-venv install lint docs examples players bench bench-dask fuzz fuzz-build fuzz-campaign sanitize build deps-build deps-test clean

define install_missing
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing:" $$missing; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

deps-build:
	$(call install_missing,$(BUILD_PACKAGES))

deps-test:
	$(call install_missing,$(TEST_PACKAGES))

build: deps-build
	$(SWIFT) build

## Build, then Splice's main jobs on the bundled sample movie (scripts/demo): inspect it, add a subtitle
## track into its subtitle group, remux it losslessly with --verify, trim it smart — outputs in .build/demo/.
demo: build
	scripts/demo

## The four articles' jobs in AVFoundation's spelling (Examples/) built as a package that depends on Splice
## by path, run, and their outputs checked with ffprobe, ffmpeg and mediainfo; then every Swift block of
## README.md, docs/ and the DocC catalogs: manifests evaluated, programs built and run on generated media
## (their outputs decoded by ffmpeg; the README's mix measured), fragments compiled (scripts/check-docs);
## then python/examples and every Python block of the docs, run with the wheel (scripts/check-python-examples).
examples: deps-test
	scripts/check-examples
	scripts/check-docs
	$(MAKE) python-venv
	scripts/check-python-examples

## The API reference: every public symbol of Splice, MediaCore, Subtitles and SpliceAVFoundation
## documented (scripts/doc-coverage), the DocC catalogs built with docc, warnings as errors, into
## .build/docs/Splice.doccarchive (scripts/docs).
docs: deps-build
	scripts/docs

## The architecture's rules: layering (who may import what), no bare integer conversion where
## files are read and written, file/function sizes (scripts/lint); and that each rule can fail.
lint:
	scripts/lint
	scripts/lint-selftest

## An optimized `splice` in $(PREFIX)/bin (default /usr/local; `make install PREFIX=~/.local` needs no root),
## and the C library: $(PREFIX)/lib/libsplice.so.$(SPLICE_VERSION) (SONAME libsplice.so.$(SPLICE_MAJOR), the Swift
## runtime linked in, only splice_* exported), $(PREFIX)/include/splice.h and $(PREFIX)/lib/pkgconfig/splice.pc.
## `splice` runs where the Swift toolchain's runtime is (it links /opt/swift's libraries, as every Swift
## program here); libsplice.so needs only libc and FFmpeg's libraries, opened on first use.
PREFIX ?= /usr/local
SPLICE_MAJOR := $(shell sed -n 's/^\#define SPLICE_VERSION_MAJOR //p' Sources/CSplice/include/splice.h)
SPLICE_VERSION := $(SPLICE_MAJOR).$(shell sed -n 's/^\#define SPLICE_VERSION_MINOR //p' Sources/CSplice/include/splice.h).$(shell sed -n 's/^\#define SPLICE_VERSION_PATCH //p' Sources/CSplice/include/splice.h)
CLIB_BUILD := -c release --product SpliceC --scratch-path .build/clib -Xswiftc -static-stdlib -Xswiftc -use-ld=lld \
	-Xlinker -soname=libsplice.so.$(SPLICE_MAJOR) -Xlinker --version-script=$(CURDIR)/scripts/libsplice.map
install: deps-build
	$(SWIFT) build -c release --product splice
	rm -f .build/clib/release/libSpliceC.so   # relinked each time: the version script is no input SwiftPM tracks
	$(SWIFT) build $(CLIB_BUILD)
	install -d "$(PREFIX)/bin" "$(PREFIX)/include" "$(PREFIX)/lib/pkgconfig"
	install -m 755 "$$($(SWIFT) build -c release --show-bin-path)/splice" "$(PREFIX)/bin/splice"
	install -m 755 "$$($(SWIFT) build $(CLIB_BUILD) --show-bin-path)/libSpliceC.so" "$(PREFIX)/lib/libsplice.so.$(SPLICE_VERSION)"
	ln -sf "libsplice.so.$(SPLICE_VERSION)" "$(PREFIX)/lib/libsplice.so.$(SPLICE_MAJOR)"
	ln -sf "libsplice.so.$(SPLICE_MAJOR)" "$(PREFIX)/lib/libsplice.so"
	install -m 644 Sources/CSplice/include/splice.h "$(PREFIX)/include/splice.h"
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(SPLICE_VERSION)|' scripts/splice.pc.in > "$(PREFIX)/lib/pkgconfig/splice.pc"
	@echo "installed $(PREFIX)/bin/splice and $(PREFIX)/lib/libsplice.so.$(SPLICE_VERSION) ($$(du -h "$(PREFIX)/lib/libsplice.so.$(SPLICE_VERSION)" | cut -f1))"

## The C library as a C program uses it (scripts/check-c-api): installed into a temporary prefix,
## Examples/c built with pkg-config alone under -std=c99 -Werror -pedantic and AddressSanitizer, run
## (inspect, remux with progress, a long export cancelled from another thread); the exports (nm -D),
## the dependencies (ldd), the previous minor version's header, and every damaged or crafted test
## input through splice_inspect_json and splice_remux in one process.
c-api: deps-test
	scripts/check-c-api

## Build and run the whole test suite: the Swift tests, then the Python package's (python-test).
test: deps-test
	$(SWIFT) build --build-tests
	$(SWIFT) test
	$(MAKE) python-test

## The Python package (python/): `make wheel` builds dist/splice-$(SPLICE_VERSION)-py3-none-linux_x86_64.whl,
## which carries libsplice.so (stripped), so that `pip install` of it needs no Swift toolchain. python-test
## checks the package's type hints (mypy --strict, the examples as users' code), and runs python/tests with pytest in a fresh
## virtual environment with the wheel installed (no library of the toolchain's or the build's on any search path), then the
## jobs' and errors' tests again with ./python installed after `make install` into $(PYDIR)/prefix (the library found by
## pkg-config: what that install changes is how the library is found, which those tests cover).
PYDIR := $(CURDIR)/.build/python
PYTEST := pytest==8.3.5
MYPY := mypy==1.13.0
DASK := dask[distributed]==2026.8.0
TEST_WHEELS := m3u8==6.0.0 mpegdash==0.4.1 numpy==2.2.6
WHEEL := dist/splice-$(SPLICE_VERSION)-py3-none-linux_x86_64.whl
wheel: deps-build
	$(MAKE) -s install PREFIX=$(PYDIR)/prefix >/dev/null
	strip --strip-unneeded -o $(PYDIR)/libsplice.so.$(SPLICE_VERSION) $(PYDIR)/prefix/lib/libsplice.so.$(SPLICE_VERSION)
	python3 -m pip wheel -q --no-deps --no-build-isolation -w dist --config-settings library=$(PYDIR)/libsplice.so.$(SPLICE_VERSION) ./python
	@echo "built $(WHEEL) ($$(du -h $(WHEEL) | cut -f1))"

## A virtual environment with the wheel, pytest, mypy and Dask installed ($(PYDIR)/venv), for the tests and python/examples.
python-venv: wheel
	rm -rf $(PYDIR)/venv && python3 -m venv $(PYDIR)/venv
	$(PYDIR)/venv/bin/pip install -q --disable-pip-version-check $(PYTEST) $(MYPY) '$(DASK)' $(TEST_WHEELS) $(WHEEL)

python-test: deps-test python-venv
	cd python && $(PYDIR)/venv/bin/mypy --strict --cache-dir=/dev/null src/splice
	cd python && $(PYDIR)/venv/bin/mypy --strict --allow-untyped-calls --cache-dir=/dev/null examples   # against the installed package's hints (py.typed); Dask's own calls are untyped
	cd python && env -u LD_LIBRARY_PATH -u SPLICE_LIBRARY PKG_CONFIG_PATH=/nonexistent SPLICE_TEST_LIBRARY=package \
		$(PYDIR)/venv/bin/python -m pytest -q -p no:cacheprovider tests
	rm -rf $(PYDIR)/venv-source && python3 -m venv $(PYDIR)/venv-source
	$(PYDIR)/venv-source/bin/pip install -q --disable-pip-version-check $(PYTEST) ./python
	cd python && env -u LD_LIBRARY_PATH -u SPLICE_LIBRARY PKG_CONFIG_PATH=$(PYDIR)/prefix/lib/pkgconfig SPLICE_TEST_LIBRARY=pkg-config \
		$(PYDIR)/venv-source/bin/python -m pytest -q -p no:cacheprovider tests/test_jobs.py tests/test_errors.py

## The player matrix: the cutting jobs' outputs (concat, trim, merge; a plain remux and an
## ffmpeg-made file as controls) played in ffmpeg, GStreamer, mpv, and headless Chromium and
## Firefox, one row per file, one cell per player (scripts/players). PLAYERS=ffmpeg,mpv picks
## columns (the browsers are installed only when asked for). Fails when a cell listed right in
## scripts/players/expected comes out wrong.
PLAYERS ?= ffmpeg,gstreamer,mpv,chromium,firefox,chromium-mse
PLAYER_PACKAGES := gstreamer1.0-plugins-base-apps $(if $(findstring chromium,$(PLAYERS)),chromium) \
	$(if $(findstring firefox,$(PLAYERS)),firefox-esr pulseaudio)
players: deps-test
	$(call install_missing,$(PLAYER_PACKAGES))
	$(SWIFT) build
	python3 -c 'import numpy' 2>/dev/null || python3 -m pip install -q numpy
	python3 scripts/players/selftest.py
	[ -x $(PYDIR)/venv/bin/python ] || $(MAKE) python-venv   # (the rows of splice.dask.export; make python-venv refreshes it)
	SPLICE_PYTHON=$(PYDIR)/venv/bin/python python3 scripts/players --players $(PLAYERS)

## Speed and memory against ffmpeg (release build; media generated once into bench-media/): the
## goals table first (each job against its ffmpeg command, interleaved rounds, medians of wall and
## CPU time and peak RSS; BENCH_ONLY=goals stops after it, BENCH_ROUNDS=n for more rounds), then
## remux against cp, decoding, concat, smart cut, watermark and images.
bench: deps-test
	$(call install_missing,time)
	$(SWIFT) build -c release
	.build/release/splice-bench
	if [ -z "$(BENCH_ONLY)" ]; then $(MAKE) bench-dask; fi

## The distributed export's row: splice.dask.export on one and two LocalCluster workers against a
## plain splice export (Benchmarks/dask_export.py; BENCH_ROUNDS=n, BENCH_CHUNK_SECONDS=s).
bench-dask: deps-test python-venv
	env -u LD_LIBRARY_PATH $(PYDIR)/venv/bin/python Benchmarks/dask_export.py bench-media $(PYDIR)/prefix/bin/splice

## The test suite under AddressSanitizer (with leak checks of every splice process the tests
## start) and under ThreadSanitizer.
sanitize: deps-test
	SPLICE_SANITIZER=address LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp ASAN_OPTIONS=detect_leaks=0:suppressions=$(CURDIR)/scripts/asan.supp SPLICE_CHILD_ASAN_OPTIONS=detect_leaks=1 \
		$(SWIFT) test --sanitize=address --scratch-path .build/asan
	SPLICE_SANITIZER=thread $(SWIFT) test --sanitize=thread --scratch-path .build/tsan

## libFuzzer targets (Fuzz/): build, seed, and run each for FUZZ_SECONDS (default 60), or for
## FUZZ_RUNS executions (what CI does; FuzzRemux, which writes two files an input, a tenth of them).
## Each run takes a fresh seed and prints it: FUZZ_SEED=<n> repeats a run.
## Crashes land in Fuzz/crashes/; make each a regression fixture named after its bug. Then the
## extremes sweep: every numeric field of the seed movies at 0, 1, max, 2^31, 2^63, NaN (FuzzCAPI with
## FUZZ_EXTREMES; see docs/hardening.md).
## `make fuzz-campaign` runs the targets users' files reach for FUZZ_CAMPAIGN_SECONDS each (niced),
## growing the corpora kept in Fuzz/corpus/remux and Fuzz/corpus/entries.
FUZZ_SECONDS ?= 60
ifndef FUZZ_SEED
FUZZ_SEED := $(shell od -An -N4 -tu4 /dev/urandom | tr -d ' ')
endif
FUZZ_LIMIT = $(if $(FUZZ_RUNS),-runs=$$runs,-max_total_time=$(FUZZ_SECONDS)) -seed=$(FUZZ_SEED)
FUZZ_TARGETS := Boxes SampleTables Subtitles Writer Codecs Remux SampleEntries Matroska CAPI
fuzz-build: deps-test
	$(SWIFT) build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld
	Fuzz/seed.sh

fuzz: fuzz-build
	@mkdir -p Fuzz/crashes; status=0; \
	for t in $(FUZZ_TARGETS); do \
		corpus=Fuzz/work/$$t; mkdir -p $$corpus; runs=$(FUZZ_RUNS); case $$t in Remux|CAPI) runs=$$((runs / 10)) ;; esac; \
		case $$t in Boxes) cp -n Fuzz/corpus/boxes/* $$corpus/ ;; SampleTables) cp -n Fuzz/corpus/tables/* $$corpus/ ;; \
		            Subtitles) cp -n Fuzz/corpus/subtitles/* $$corpus/ ;; Codecs) cp -n Fuzz/corpus/codecs/* $$corpus/ ;; \
		            Remux|CAPI) cp -n Fuzz/corpus/remux/* $$corpus/ ;; SampleEntries) cp -n Fuzz/corpus/entries/* $$corpus/ ;; \
		            Matroska) cp -n Fuzz/corpus/matroska/* $$corpus/ ;; esac; \
		echo "fuzzing $$t ($(FUZZ_LIMIT); FUZZ_SEED=$(FUZZ_SEED) repeats it)"; \
		SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp Fuzz/.build/release/Fuzz$$t $(FUZZ_LIMIT) -timeout=10 \
			-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix=Fuzz/crashes/$$t- $$corpus \
			2>&1 | grep -E '^(Done|stat::number_of_executed_units|==[0-9]+==ERROR|.*Fatal error)' || true; \
		if ls Fuzz/crashes/$$t-* >/dev/null 2>&1; then echo "$$t: crash found (see Fuzz/crashes)"; status=1; fi; \
	done; \
	mkdir -p Fuzz/work/extremes && cp $(EXTREMES_SEEDS) Fuzz/work/extremes/ && \
	SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp FUZZ_EXTREMES=Fuzz/work/extremes Fuzz/.build/release/FuzzCAPI 2>&1 | grep -E '^extremes|ERROR|Fatal error' \
		&& [ ! -e Fuzz/crashes/CAPI-extremes-current ] || { echo "extremes: a mutant broke a rule (Fuzz/crashes/CAPI-extremes-current)"; status=1; }; \
	exit $$status

# The extremes sweep's seeds: one of each kind of file (EXTREMES_SEEDS="Fuzz/corpus/boxes/*" adds the
# grouped movie's eight tracks: 25 000 more mutants).
EXTREMES_SEEDS ?= Fuzz/corpus/boxes/tiny*.mp4 Fuzz/corpus/boxes/tiny.mov Fuzz/corpus/boxes/pcm.mov Fuzz/corpus/matroska/seed-mkvmerge.mkv

FUZZ_CAMPAIGN_SECONDS ?= 1800
fuzz-campaign: fuzz-build
	@mkdir -p Fuzz/crashes; for t in Remux:remux SampleEntries:entries; do \
		name=$${t%%:*}; corpus=Fuzz/corpus/$${t#*:}; \
		echo "campaign $$name: $(FUZZ_CAMPAIGN_SECONDS) s, seed $(FUZZ_SEED), corpus $$corpus ($$(ls $$corpus | wc -l) inputs)"; \
		SWIFT_BACKTRACE=enable=no nice -n 10 Fuzz/.build/release/Fuzz$$name -max_total_time=$(FUZZ_CAMPAIGN_SECONDS) \
			-seed=$(FUZZ_SEED) -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
			-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
			-artifact_prefix=Fuzz/crashes/$$name- $$corpus 2>&1 | grep -E '^(Done|stat::|#[0-9]+.*DONE|INFO: fuzzed|==[0-9]+==ERROR)|Fatal error|crash' | tail -20; \
	done

clean:
	rm -rf .build
