"""The on-disk cache of compiled object code (`@pyad.jit_grad(cache=True)`).

Where: ``$PYAD_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/pyad``, else ``~/.cache/pyad``
(:func:`cache_dir`, read at every lookup). :func:`clear_cache` deletes the entries (only files
pyad wrote; the directory stays).

What: one file per compiled unit (a primal, or the gradient kernels of one signature),
``<unit name>-<key>.pyadobj``, holding the object file ``codegen.jit.compile_module`` emitted
and its optimized LLVM IR (zlib-compressed, for ``f.llvm_ir()``). A hit skips LLVM parsing,
optimization and code generation; the object is linked like a fresh one (its external symbols
resolved through the JIT allow-list).

The key is content addressed, so an edited function can never load a stale entry: the SHA-256
of the unoptimized LLVM IR text of the unit's module (which contains the code of the function
and of everything it calls, its constants and its wrapper) together with the pyad version, the
runtime ABI version, the cache format, the Python version, the llvmlite and LLVM versions, a
digest of ``codegen/jit.py`` and ``codegen/passes.py`` (the optimization pipeline run after
keying), the target (triple, CPU name and features, optimization level, relocation model,
code model), the exported symbols and the options (fastmath, boundscheck). The IR text holds
no addresses (external symbols are resolved when the object is linked) and no per-process
names or counters. Python parsing, AD and IR emission still run on a hit (the W2 benchmark's
first call takes about 0.15 s instead of 0.3 s; docs/processes.md).

Files are written atomically (temporary file + ``os.replace``) with a header carrying the key,
the payload sizes and a SHA-256 checksum; a truncated or corrupt entry, or one whose object
fails to link, is counted as ``rejected``, compiled afresh and rewritten. A cache directory
that cannot be written disables storing for the rest of the process, with one
``PyadCacheWarning``. The cache never grows unless new code is compiled; there is no eviction
(delete the directory or call :func:`clear_cache`).
"""
from __future__ import annotations

import hashlib
import os
import re
import struct
import sys
import threading
import warnings
import zlib
from pathlib import Path

from .. import _runtime

__all__ = ["cache_dir", "clear_cache", "stats", "ObjectCache", "PyadCacheWarning"]

ENV_VAR = "PYAD_CACHE_DIR"
#: Bumped whenever the entry layout or the meaning of its contents changes.
FORMAT_VERSION = 1
SUFFIX = ".pyadobj"
_MAGIC = b"PYADOBJ\n"
_HEADER = struct.Struct("<8sI64sQQ32s")  # magic, format, key (hex), len(obj), len(ir), sha256


class PyadCacheWarning(UserWarning):
    """The on-disk cache could not be used (it is then disabled; compiling still works)."""


_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0, "stores": 0, "rejected": 0, "memory_hits": 0}
_unwritable: set[str] = set()  # directories already warned about
_fingerprint: str | None = None


def cache_dir() -> Path:
    """The directory of the on-disk cache: ``$PYAD_CACHE_DIR``, else ``$XDG_CACHE_HOME/pyad``,
    else ``~/.cache/pyad``. It is created on the first store."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "pyad"


def clear_cache() -> int:
    """Delete every cache entry (and leftover temporary file) in :func:`cache_dir`; return how
    many files were removed. Other files in the directory are left alone."""
    d = cache_dir()
    removed = 0
    try:
        names = os.listdir(d)
    except OSError:
        return 0
    for n in names:
        if n.endswith(SUFFIX) or (n.startswith(".tmp-") and n.endswith(SUFFIX + ".part")):
            try:
                os.unlink(d / n)
                removed += 1
            except OSError:
                pass
    return removed


def stats() -> dict[str, int]:
    """Process-wide counters: ``hits`` (entries loaded from disk and linked), ``memory_hits``
    (served by a function's in-memory index), ``misses``, ``stores`` and ``rejected`` (entries
    found but truncated, corrupt or failing to link, then rebuilt; they count as neither hits
    nor misses)."""
    with _lock:
        return dict(_stats)


def _count(what: str) -> None:
    with _lock:
        _stats[what] += 1


def _environment() -> str:
    """Everything outside the IR text that decides the object code (computed once)."""
    global _fingerprint
    if _fingerprint is None:
        # import-time: llvmlite loads with the first compile, not with `import pyad`
        import llvmlite
        import llvmlite.binding as llvm
        try:
            from importlib.metadata import version
            pyad_version = version(_runtime.DIST_NAME)
        except Exception:  # noqa: BLE001 -- not installed as a distribution
            pyad_version = "unknown"
        _fingerprint = repr((FORMAT_VERSION, pyad_version, _runtime.RT_VERSION,
                             sys.implementation.cache_tag, llvmlite.__version__,
                             tuple(llvm.llvm_version_info), _jit_source_digest()))
    return _fingerprint


def _jit_source_digest() -> str:
    """SHA-256 of codegen/jit.py and codegen/passes.py: what happens to the IR after it is
    keyed (the optimization pipeline, the target machine options) lives there and is not in
    the IR text; an edit to them must not load objects optimized the old way (the pyad
    version does not change between edits of a development install)."""
    # import-time: they load llvmlite; `import pyad` must stay fast
    from ..codegen import jit, passes
    h = hashlib.sha256()
    try:
        for module in (jit, passes):
            h.update(Path(module.__file__).read_bytes())
    except OSError:  # no source (a frozen build): the pyad version has to do
        return "no source"
    return h.hexdigest()


def _safe(name: str | None) -> str:
    return re.sub(r"[^A-Za-z0-9_.]", "_", name or "pyad")[:48]


class ObjectCache:
    """The cache as seen by one compiled function (a ``JitGrad``): the options that shape its
    code, and an in-memory index of the entries it already loaded or stored, so that a repeated
    lookup of the same key (e.g. two argnums spellings with the same gradient kernels) does not
    touch the disk. Implements the ``object_cache`` protocol of ``codegen.jit.compile_module``:
    ``key(text, target)``, ``load(key, name)``, ``store(key, name, obj, llvm_ir)``,
    ``reject(key, name)``."""

    def __init__(self, **options) -> None:
        self.options = tuple(sorted(options.items()))
        self._index: dict[str, tuple[bytes, str]] = {}
        self._source: dict[str, str] = {}  # key -> the counter its last load incremented
        self._lock = threading.Lock()

    def key(self, text: str, target: tuple) -> str:
        h = hashlib.sha256()
        h.update(repr((_environment(), tuple(target), self.options)).encode())
        h.update(b"\0")
        h.update(text.encode())
        return h.hexdigest()

    @staticmethod
    def path(key: str, name: str | None) -> Path:
        return cache_dir() / f"{_safe(name)}-{key}{SUFFIX}"

    def load(self, key: str, name: str | None) -> tuple[bytes, str] | None:
        """(object code, optimized LLVM IR) of `key`, or None."""
        with self._lock:
            hit = self._index.get(key)
            if hit is not None:
                self._source[key] = "memory_hits"
        if hit is not None:
            _count("memory_hits")
            return hit
        try:
            with open(self.path(key, name), "rb") as fh:
                data = fh.read()
        except OSError:
            _count("misses")
            return None
        entry = _decode(data, key)
        if entry is None:
            _count("rejected")
            return None
        _count("hits")
        with self._lock:
            self._index[key] = entry
            self._source[key] = "hits"
        return entry

    def store(self, key: str, name: str | None, obj: bytes, llvm_ir: str) -> None:
        """Write the entry atomically; never raises (an unwritable directory disables storing
        for the process with one warning)."""
        with self._lock:
            self._index[key] = (obj, llvm_ir)
        d = cache_dir()
        if str(d) in _unwritable:
            return
        import tempfile
        tmp = None
        try:
            d.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=SUFFIX + ".part")
            with os.fdopen(fd, "wb") as fh:
                fh.write(_encode(key, obj, llvm_ir))
            os.replace(tmp, self.path(key, name))
            tmp = None
            _count("stores")
        except OSError as e:
            with _lock:
                first = str(d) not in _unwritable
                _unwritable.add(str(d))
            if first:
                warnings.warn(f"pyad: the on-disk cache at {d} cannot be written ({e}); caching "
                              f"is disabled for this process (set {ENV_VAR} to a writable "
                              "directory)", PyadCacheWarning, stacklevel=2)
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass

    def reject(self, key: str, name: str | None) -> None:
        """Forget an entry that could not be used (it is rebuilt and stored again); the load
        that returned it no longer counts as a hit."""
        with self._lock:
            self._index.pop(key, None)
            source = self._source.pop(key, None)
        with _lock:
            if source is not None:
                _stats[source] -= 1
            _stats["rejected"] += 1


def _encode(key: str, obj: bytes, llvm_ir: str) -> bytes:
    irz = zlib.compress(llvm_ir.encode(), 1)
    payload = obj + irz
    head = _HEADER.pack(_MAGIC, FORMAT_VERSION, key.encode("ascii"), len(obj), len(irz),
                        hashlib.sha256(payload).digest())
    return head + payload


def _decode(data: bytes, key: str) -> tuple[bytes, str] | None:
    """The entry in `data` if it is complete, intact and for `key`; else None."""
    if len(data) < _HEADER.size:
        return None
    magic, fmt, k, nobj, nir, digest = _HEADER.unpack_from(data)
    if magic != _MAGIC or fmt != FORMAT_VERSION or k != key.encode("ascii"):
        return None
    payload = data[_HEADER.size:]
    if len(payload) != nobj + nir or hashlib.sha256(payload).digest() != digest:
        return None
    try:
        text = zlib.decompress(payload[nobj:]).decode()
    except (zlib.error, UnicodeDecodeError):
        return None
    return bytes(payload[:nobj]), text
