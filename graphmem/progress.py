"""Progress reporting for long calls: a rich bar on stderr, a caller's callback, or nothing."""

from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[int, int], None]


def reporter(
    progress: bool | ProgressFn, total: int, label: str = "remembering"
) -> tuple[Callable[[int], None], Callable[[], None]]:
    """``(report(done), finish())`` for ``progress``: True for a bar, a ``fn(done, total)``
    callback, or False for nothing."""
    if callable(progress):
        return (lambda done: progress(done, total)), (lambda: None)
    if not progress:
        return (lambda done: None), (lambda: None)
    from rich.progress import Progress

    bar = Progress(transient=False)
    bar.start()
    task = bar.add_task(label, total=total)
    return (lambda done: bar.update(task, completed=done)), bar.stop
