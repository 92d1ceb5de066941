"""Text embeddings with fastembed (ONNX, local). The model loads once per process."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Protocol

import numpy as np

from .config import DEFAULT_MODEL, MODEL_PATH_ENV, model_path_from_env
from .errors import ModelLoadError

KNOWN_DIMS = {DEFAULT_MODEL: 384}
HF_HOST = "huggingface.co"
PROBE_TIMEOUT = 3.0


class Embedder(Protocol):
    """What graphmem needs from an embedding model: L2-normalised float32 rows."""

    model_name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


_MODELS: dict[tuple[str, str | None], object] = {}
_MODELS_LOCK = threading.Lock()


def _fix_hint(model_name: str) -> str:
    return (
        f"Set {MODEL_PATH_ENV} (or pass model_path=) to a local copy of '{model_name}' "
        "(a folder with model.onnx, tokenizer.json and config.json, for example "
        "../shared/models/all-MiniLM-L6-v2-onnx), or give the machine network access so "
        f"fastembed can download '{model_name}' by name."
    )


def _load(model_name: str, model_path: str | None, threads: int | None) -> Any:
    key = (model_name, model_path)
    with _MODELS_LOCK:
        if key in _MODELS:
            return _MODELS[key]
        if model_path is not None:
            folder = Path(model_path).expanduser()
            if not (folder / "model.onnx").is_file():
                raise ModelLoadError(
                    f"No embedding model at '{folder}' (model.onnx is missing). "
                    + _fix_hint(model_name)
                )
        try:
            from fastembed import TextEmbedding

            kwargs: dict = {"threads": threads}
            model: object
            with _no_spinning():
                if model_path is not None:
                    kwargs["specific_model_path"] = str(Path(model_path).expanduser())
                    model = TextEmbedding(model_name, **kwargs)
                else:
                    model = _cached_or_download(TextEmbedding, model_name, kwargs)
        except ModelLoadError:
            raise
        except Exception as exc:  # fastembed raises many types (network, ONNX, value errors)
            raise ModelLoadError(
                f"Could not load embedding model '{model_name}': {_clause(exc)}. "
                + _fix_hint(model_name)
            ) from exc
        _MODELS[key] = model
        return model


@contextmanager
def _no_spinning() -> Iterator[None]:
    """Sessions fastembed creates meanwhile do not spin their threads after a run.

    By default onnxruntime's worker threads busy-wait for more work after each inference.
    On a small machine that steals the cores from what follows an embedding: a single
    ``remember`` spent 3-4× longer planning and writing right after one (and the next
    embedding ran 3× slower when other processes shared the cores), with no gain in batch
    throughput. fastembed exposes no such option, so the ``SessionOptions`` it builds get the
    setting for the duration of the load (under ``_MODELS_LOCK``); a fastembed without the
    ``ort`` module attribute this relies on keeps onnxruntime's default.
    """
    try:
        from fastembed.common import onnx_model
    except ImportError:
        yield
        return
    real = getattr(onnx_model, "ort", None)
    if real is None or not hasattr(real, "SessionOptions"):
        yield
        return

    class QuietOptions(real.SessionOptions):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self.add_session_config_entry("session.inter_op.allow_spinning", "0")

    onnx_model.ort = SimpleNamespace(**{**vars(real), "SessionOptions": QuietOptions})
    try:
        yield
    finally:
        onnx_model.ort = real


def _clause(exc: BaseException) -> str:
    """An error's message without its final full stop (ours follows it)."""
    return str(exc).strip().rstrip(".")


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "TRUE", "YES", "ON"}


def _reachable(host: str = HF_HOST, timeout: float = PROBE_TIMEOUT) -> bool:
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError:
        return False
    return True


def _cached_or_download(text_embedding: Any, model_name: str, kwargs: dict[str, Any]) -> object:
    """The model from fastembed's cache; a download only when it is missing and the hub can be
    reached. Offline, fastembed would otherwise retry with back-off for ~40 s and log errors."""
    from loguru import logger

    # A cache miss is expected here; fastembed would log it as two ERROR lines.
    logger.disable("fastembed")
    try:
        return text_embedding(model_name, local_files_only=True, **kwargs)
    except Exception as exc:
        cached_error = exc
    finally:
        logger.enable("fastembed")
    if _offline() or not _reachable():
        raise ModelLoadError(
            f"The embedding model '{model_name}' is not in fastembed's cache "
            f"({os.environ.get('FASTEMBED_CACHE_PATH') or 'its default cache folder'}) and "
            f"{'HF_HUB_OFFLINE is set' if _offline() else HF_HOST + ' cannot be reached'}. "
            + _fix_hint(model_name)
        ) from cached_error
    return text_embedding(model_name, **kwargs)


class FastEmbedder:
    """fastembed's ``TextEmbedding`` behind graphmem's ``Embedder`` protocol.

    Args:
        model_name: a model fastembed knows; the default is all-MiniLM-L6-v2 (384 dims).
        model_path: a folder holding the model files. ``None`` reads ``GRAPHMEM_MODEL_PATH``,
            and without that fastembed downloads the model by name.
        batch_size: texts per ONNX call.
        threads: ONNX threads (``None`` lets onnxruntime choose).

    Raises:
        ModelLoadError: the model cannot be loaded; the message says how to fix it.
    """

    def __init__(
        self,
        model_name: str = DEFAULT_MODEL,
        *,
        model_path: str | None = None,
        batch_size: int = 64,
        threads: int | None = None,
    ) -> None:
        self.model_name = model_name
        self.model_path = model_path if model_path is not None else model_path_from_env()
        self.batch_size = batch_size
        self._model = _load(model_name, self.model_path, threads)
        probe = self.embed(["graphmem"])
        self.dim = int(probe.shape[1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts into an ``(n, dim)`` float32 array of unit rows."""
        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        # Batches of similar length waste far less work on padding (2× faster on passages).
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        rows = list(self._model.embed([texts[i] for i in order], batch_size=self.batch_size))
        out = np.empty((len(texts), len(rows[0])), dtype=np.float32)
        out[order] = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms
