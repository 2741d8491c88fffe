"""Running one call of the C library: its errors, its cancel token, its helper thread."""

from __future__ import annotations

import ctypes
import enum
import json
import logging
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Optional, Union

from . import _native
from ._native import lib

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
Progress = Callable[[float], Any]

log = logging.getLogger("splice")

#: How often the calling thread wakes while it waits for a job (seconds): the longest a
#: KeyboardInterrupt from SIGINT waits before it cancels the job.
_SLICE = 0.05


# A child forked after Splice ran in its parent inherits the library's locks but not its
# threads: a call there would hang. Such a child gets a SpliceError instead.
_ran = False
_forked_after_run = False


def _after_fork_in_child() -> None:
    global _forked_after_run
    _forked_after_run = _forked_after_run or _ran


os.register_at_fork(after_in_child=_after_fork_in_child)


def _enter(runs: bool = True) -> None:
    """Before a call into the library (`runs`: one that runs Splice's work)."""
    global _ran
    if _forked_after_run:
        raise SpliceError("splice: this process was forked from one in which Splice had run, and cannot "
                          "call it (its threads were not copied); start processes with multiprocessing's "
                          "'spawn' or 'forkserver' method, or use Splice first in the child", Status.INVALID_OPERATION)
    _ran = _ran or runs


class Status(enum.IntEnum):
    """Why a call failed (``enum splice_status``)."""

    OK = 0
    INVALID_DATA = 1
    TRUNCATED = 2
    UNSUPPORTED = 3
    FILE_NOT_FOUND = 4
    FILE_EXISTS = 5
    IO = 6
    INVALID_OPERATION = 7
    CANCELLED = 8
    USAGE = 9
    INTERNAL = 10


class SpliceError(Exception):
    """A call that failed: ``message`` says what is wrong (with the file and, in a damaged
    movie, the box path), ``status`` is a :class:`Status` (an ``int`` when the library is newer
    than this package and says something it does not know), ``file`` the file it names, or
    None."""

    def __init__(self, message: str, status: Union[Status, int] = Status.INTERNAL, file: Optional[str] = None):
        super().__init__(message)
        self.message = message
        try:
            self.status: Union[Status, int] = Status(status)
        except ValueError:
            self.status = status
        self.file = file

    def __reduce__(self) -> tuple[type, tuple[str, int, Optional[str]]]:
        return (type(self), (self.message, int(self.status), self.file))

    def __repr__(self) -> str:
        status = self.status.name if isinstance(self.status, Status) else self.status
        return f"SpliceError({self.message!r}, {status}, {self.file!r})"


class CancelToken:
    """Cancels the calls it is given to (``cancel=token``) from any thread, at any time: before
    a call (the call is cancelled as it starts), during it, or from its progress callback. A
    cancelled call raises :class:`SpliceError` with ``Status.CANCELLED`` and leaves nothing."""

    def __init__(self, linked: Optional["CancelToken"] = None) -> None:
        """``linked``: another token whose cancel cancels this one's calls too."""
        _enter(runs=False)
        pointer = lib.splice_cancel_token_new()
        if not pointer:
            raise MemoryError("splice: no memory for a cancel token")
        self._pointer = pointer
        self._linked = linked

    def cancel(self) -> None:
        """Cancel every call given this token; calls given it later are cancelled as they start."""
        lib.splice_cancel_token_cancel(self._pointer)

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return bool(lib.splice_cancel_token_is_cancelled(self._pointer)) or (
            self._linked is not None and self._linked.cancelled)

    def __del__(self) -> None:
        pointer, self._pointer = getattr(self, "_pointer", None), None
        if pointer and lib is not None:
            lib.splice_free(pointer)


def error_from(pointer: ctypes.c_void_p, status: int) -> SpliceError:
    """The SpliceError for a ``splice_error`` (freed here)."""
    try:
        message = lib.splice_error_message(pointer)
        file = lib.splice_error_file(pointer)
        return SpliceError(message.decode("utf-8", "replace") if message else f"splice: status {status}",
                           lib.splice_error_status(pointer), os.fsdecode(file) if file else None)
    finally:
        lib.splice_free(pointer)


def fspath(path: PathLike) -> bytes:
    """A path as the library takes it."""
    return os.fsencode(path)


def inspect_json(path: PathLike) -> dict[str, Any]:
    """``splice_inspect_json``, parsed."""
    _enter()
    text, error = ctypes.c_void_p(), ctypes.c_void_p()
    status = lib.splice_inspect_json(fspath(path), ctypes.byref(text), ctypes.byref(error))
    if status != 0:
        raise error_from(error, status)
    try:
        result: dict[str, Any] = json.loads(ctypes.string_at(text).decode("utf-8"))
        return result
    finally:
        lib.splice_free(text)


class Job:
    """One job: the C call runs on a helper thread, which also calls the progress callback;
    the calling thread waits in short slices, so that a KeyboardInterrupt (or any exception a
    signal handler raises) cancels the job, waits until it has stopped and removed what it
    wrote, and is raised again."""

    def __init__(self, name: str, inputs: Sequence[PathLike], output: PathLike, options: dict[str, Any],
                 progress: Optional[Progress], cancel: Optional[CancelToken]):
        _enter()
        self.function = getattr(lib, "splice_" + name)
        self.inputs = [fspath(p) for p in inputs]
        self.output = fspath(output)
        self.options = json.dumps({k: v for k, v in options.items() if v is not None and v is not False},
                                  sort_keys=True).encode()
        self.progress = progress
        self.token = CancelToken()
        self.outer = cancel
        self.raised: Optional[BaseException] = None
        self.status = -1
        self.error = ctypes.c_void_p()
        self.done = threading.Event()

    def run(self) -> None:
        """Run the job; raise what it raised, or its SpliceError."""
        if self.outer is not None and self.outer.cancelled:
            self.token.cancel()
        thread = threading.Thread(target=self._work, name="splice-job", daemon=True)
        thread.start()
        try:
            while not self.done.wait(_SLICE):
                if self.outer is not None and self.outer.cancelled:
                    self.token.cancel()
        except BaseException:
            self.token.cancel()
            self._wait_to_the_end()
            raise
        thread.join()
        if self.raised is not None:
            if self.error:
                lib.splice_free(self.error)
            raise self.raised
        if self.status != 0:
            raise error_from(self.error, self.status)

    def _wait_to_the_end(self) -> None:
        """Waits for a cancelled job, whatever else interrupts the wait (a second Ctrl-C)."""
        while True:
            try:
                if self.done.wait(_SLICE):
                    return
            except BaseException:
                continue

    def _work(self) -> None:
        try:
            array = (ctypes.c_char_p * max(1, len(self.inputs)))(*self.inputs)
            job = _native.SpliceJob()
            job.size, job.cancel = ctypes.sizeof(_native.SpliceJob), self.token._pointer
            job.progress = _native.PROGRESS_FN(self._on_progress)
            job.log = _native.LOG_FN(_on_log)
            self.status = self.function(array, len(self.inputs), self.output, self.options,
                                        ctypes.byref(job), ctypes.byref(self.error))
        except BaseException as error:
            self.raised = error
        finally:
            self.done.set()

    def _on_progress(self, fraction: float, _context: Any) -> int:
        if self.raised is not None:
            return 1
        try:
            if self.outer is not None and self.outer.cancelled:
                return 1
            if self.progress is not None:
                self.progress(fraction)
            return 0
        except BaseException as error:  # noqa: B036 — KeyboardInterrupt too: it cancels the job
            self.raised = error
            return 1


_LEVELS = {0: logging.ERROR, 1: logging.WARNING, 2: logging.INFO}


def _on_log(level: int, line: bytes, _context: Any) -> None:
    try:
        log.log(_LEVELS.get(level, logging.WARNING), "%s", line.decode("utf-8", "replace"))
    except BaseException:  # noqa: B036 — nothing may escape into the library
        pass
