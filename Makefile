# Splice — two commands: `make demo` and `make test`.
# Both install the Debian packages they need when missing (apt-get; sudo only when not root).

SWIFT ?= swift
export PATH := $(PATH):/opt/swift/usr/bin

# Build needs FFmpeg's -dev packages; tests use the ffmpeg CLI and mediainfo as independent tools.
BUILD_PACKAGES := pkg-config libavformat-dev libavcodec-dev libavutil-dev
TEST_PACKAGES := $(BUILD_PACKAGES) ffmpeg mediainfo mkvtoolnix time
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEMO := Samples/Media/grouped.mp4

.PHONY: demo test bench build deps-build deps-test clean

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

## Build, then show the track structure of the bundled sample movie.
demo: build
	.build/debug/splice inspect $(DEMO)

## Build and run the whole test suite.
test: deps-test
	$(SWIFT) build --build-tests
	$(SWIFT) test

## Remux speed and memory against cp and ffmpeg (release build; media generated once into bench-media/).
bench: deps-test
	$(call install_missing,time)
	$(SWIFT) build -c release
	.build/release/splice-bench

clean:
	rm -rf .build
