"""A CLI call leaves a short-lived owner behind, so the next call is a fast client.

Opening a store costs a CLI call 1.5–3 s (Kùzu, the mirror, then the embedding model), while
a call served by the store's owner costs about 0.35 s, most of it starting Python. So when a
command finds no owner, it starts one, ``graphmem serve --idle-exit SECONDS`` in a process
of its own, waits until it serves, and becomes its client. That owner exits after ``linger``
seconds without a call (setting ``linger``, env ``GRAPHMEM_LINGER``, default 60; 0: never
start one, open the store in the calling process as before). Every later call within that
time, from any shell, takes the client path; recall ids stay known between calls, so
``graphmem feedback`` works after ``graphmem recall``.

Should the owner fail to start, or lose the race to another process, the command opens the
store as before: it never fails because of this.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

READY = b"ready\n"


def start_owner(
    folder: Path, *, linger: float, timeout: float, model_path: str | None = None
) -> bool:
    """Start ``graphmem serve --idle-exit linger`` for ``folder``, detached from this process
    and its terminal; True once it serves (it says so on a pipe), False if it did not."""
    read_end, write_end = os.pipe()
    argv = [sys.executable, "-m", "graphmem.cli", "-d", str(folder.expanduser().absolute())]
    if model_path:
        argv += ["--model-path", str(model_path)]
    argv += ["serve", "--idle-exit", f"{linger:g}", "--ready-fd", str(write_end)]
    try:
        proc = subprocess.Popen(
            argv,
            pass_fds=(write_end,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Its own session: Ctrl-C in this shell, or the shell closing, leaves it be.
            start_new_session=True,
        )
    except OSError:
        os.close(read_end)
        return False
    finally:
        os.close(write_end)
    try:
        # The pipe says "ready" once the owner listens, or ends if the process exits first.
        ready, _, _ = select.select([read_end], [], [], timeout)
        said = os.read(read_end, len(READY)) if ready else b""
    finally:
        os.close(read_end)
    if said == READY:
        # It outlives this process by design; Popen must not warn that it is still running.
        proc.returncode = 0
        return True
    if proc.poll() is None:
        # Too slow to start: stop it (it may not hold the store yet) so this call opens it.
        proc.terminate()
        proc.wait()
    return False


def signal_ready(fd: int | None) -> None:
    """Tell the process that started this owner that it serves (``serve --ready-fd``)."""
    if fd is None:
        return
    try:
        os.write(fd, READY)
    except OSError:
        pass  # the starter gave up waiting: serving on is still right
    finally:
        os.close(fd)


__all__ = ["signal_ready", "start_owner"]
