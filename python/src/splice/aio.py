"""Splice's jobs for ``asyncio``: ``await splice.aio.remux(src, dst)``.

Each function takes the arguments of the function of the same name in :mod:`splice` and runs
its job on a thread of the loop's default executor, so the loop goes on while it runs. A
``progress`` callback is called on the loop's thread (``loop.call_soon_threadsafe``), every
call before the awaited call returns. Cancelling the awaiting task cancels the job; the task's
``CancelledError`` is raised once the job has stopped and removed what it wrote.
"""

from __future__ import annotations

import asyncio
import functools
import inspect as _inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import splice

from ._job import CancelToken

__all__ = ["add_subtitles", "concat", "export", "extract_subtitles", "images", "inspect", "merge", "mix",
           "package", "remux", "thumbnail", "trim"]

T = TypeVar("T")


def _asynchronous(function: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    signature = _inspect.signature(function)

    @functools.wraps(function)
    async def call(*args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        arguments = signature.bind(*args, **kwargs).arguments
        token = CancelToken(linked=arguments.get("cancel"))
        if "cancel" in signature.parameters:
            arguments["cancel"] = token
        progress = arguments.get("progress")
        if progress is not None:
            arguments["progress"] = lambda fraction: loop.call_soon_threadsafe(progress, fraction)
        overrides = arguments.pop("overrides", {})
        future = loop.run_in_executor(None, functools.partial(function, **arguments, **overrides))
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            token.cancel()
            try:
                await future
            except BaseException:  # noqa: B036 — the job's own end (cancelled) is not the news
                pass
            raise

    return call


inspect = _asynchronous(splice.inspect)
remux = _asynchronous(splice.remux)
add_subtitles = _asynchronous(splice.add_subtitles)
extract_subtitles = _asynchronous(splice.extract_subtitles)
export = _asynchronous(splice.export)
trim = _asynchronous(splice.trim)
concat = _asynchronous(splice.concat)
merge = _asynchronous(splice.merge)
mix = _asynchronous(splice.mix)
images = _asynchronous(splice.images)
thumbnail = _asynchronous(splice.thumbnail)
package = _asynchronous(splice.package)
