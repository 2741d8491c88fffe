// The types Splice's API speaks in: `import Splice` is enough to use it.
@_exported import MediaCore
@_exported import Subtitles
