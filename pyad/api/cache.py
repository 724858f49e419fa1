"""The on-disk cache of compiled code: shared objects loaded with the dynamic loader.

On by default for functions defined in files (`jit_grad(cache=False)` turns it off for one
function, ``PYAD_CACHE=0`` for every function that does not ask for it with `cache=True`).

Where: ``$PYAD_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/pyad``, else ``~/.cache/pyad``
(:func:`cache_dir`, read at every lookup). :func:`clear_cache` deletes the entries (only files
pyad wrote; the directory stays).

What: one file per compiled unit (the primal of a signature, or its gradient kernels, or its
pullback kernels), ``<name>-<key>.pyad.so``: a shared object linked by the C compiler from the
unit's position-independent object code, followed by a trailer the dynamic loader ignores:
what is needed to call it without compiling anything (the signature's result structure, the
kernels' argument kinds, the exported symbols) and its optimized LLVM IR (zlib-compressed,
for ``f.llvm_ir()``), with a SHA-256 checksum of the whole file. A hit runs no parser, no AD and no LLVM; it
does not import llvmlite or the compiler at all.

The key (fingerprint.py) is the function's code object and everything its names reach
(globals, closures, defaults, called functions, module attributes, classes: by value), the
signature (leaf types and structure), the unit and its argnums, the options (fastmath,
boundscheck, max_tape_bytes, the recursion limit), and this process's environment
(:func:`environment`): the cache format, a digest of pyad's own source files (so an edited
compiler never serves old code), the runtime ABI, the Python, NumPy and llvmlite builds, the
CPU (model and feature flags) and the verified object layouts. A function whose names reach
an object of unknown kind is compiled as usual and not cached (``uncacheable`` in stats).

Files are written atomically (a temporary file in the directory, then ``os.replace``), so
concurrent processes see a whole entry or none; a truncated or corrupt entry, or one that
fails to load, is counted as ``rejected``, deleted, compiled afresh and rewritten. The
directory is bounded (``$PYAD_CACHE_MAX_BYTES``, default 512 MiB): after a store, the least
recently used entries (a hit refreshes an entry's time) are deleted until it is under 3/4 of
the bound. A directory that cannot be written disables storing for the rest of the process,
with one ``PyadCacheWarning``. Linux only (elsewhere functions compile as if `cache=False`).
"""
from __future__ import annotations

import os
import pickle
import struct
import sys
import threading
import time
import warnings
import zlib
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .. import _runtime
from . import fingerprint
from .fingerprint import sha256

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["cache_dir", "clear_cache", "stats", "PyadCacheWarning", "default_enabled", "key",
           "lookup", "slot", "reject", "Entry", "Slot"]

ENV_VAR = "PYAD_CACHE_DIR"
#: "0", "off", "false" or "no": functions are not cached unless they ask (`cache=True`)
ENV_SWITCH = "PYAD_CACHE"
ENV_MAX_BYTES = "PYAD_CACHE_MAX_BYTES"
DEFAULT_MAX_BYTES = 512 << 20
#: Bumped whenever the entry layout or the meaning of its contents changes.
FORMAT_VERSION = 2
SUFFIX = ".pyad.so"
_TMP_PREFIX = ".tmp-"
_MAGIC = b"PYADSO\x00\x02"
_TRAILER = struct.Struct("<8sI64sQ32s")  # magic, format, key (hex), len(payload), sha256 of all


class PyadCacheWarning(UserWarning):
    """The on-disk cache could not be used (it is then disabled; compiling still works)."""


_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0, "stores": 0, "rejected": 0, "evicted": 0, "uncacheable": 0}
_disabled: set[str] = set()  # directories (or "link") already warned about
_environment: str | None = None


def cache_dir() -> Path:
    """The directory of the on-disk cache: ``$PYAD_CACHE_DIR``, else ``$XDG_CACHE_HOME/pyad``,
    else ``~/.cache/pyad``. It is created on the first store."""
    from pathlib import Path  # import-time: ~8 ms; a cache hit uses strings (_dir)
    return Path(_dir())


def _dir() -> str:
    env = os.environ.get(ENV_VAR)
    if env:
        return os.path.expanduser(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = os.path.expanduser(xdg) if xdg else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pyad")


def _ours(name: str) -> bool:
    return name.endswith(SUFFIX) or (name.startswith(_TMP_PREFIX) and ".pyad" in name)


def clear_cache() -> int:
    """Delete every cache entry (and leftover temporary file) in :func:`cache_dir`; return how
    many files were removed. Other files in the directory are left alone."""
    removed, d = 0, _dir()
    try:
        names = os.listdir(d)
    except OSError:
        return 0
    for n in names:
        if _ours(n):
            try:
                os.unlink(os.path.join(d, n))
                removed += 1
            except OSError:
                pass
    return removed


def stats() -> dict[str, int]:
    """Process-wide counters: ``hits`` (units loaded from disk), ``misses``, ``stores``,
    ``rejected`` (entries found but truncated, corrupt or failing to load: deleted and
    rebuilt; they count as neither hits nor misses), ``evicted`` (entries deleted to keep the
    directory under its bound) and ``uncacheable`` (signatures of functions that reach an
    object the key cannot digest)."""
    with _lock:
        return dict(_stats)


def _count(what: str, n: int = 1) -> None:
    with _lock:
        _stats[what] += n


def default_enabled(fn) -> bool:
    """Whether `jit_grad(cache=None)` caches `fn`: defined in a file, and not switched off
    by ``PYAD_CACHE``."""
    if os.environ.get(ENV_SWITCH, "").strip().lower() in ("0", "off", "false", "no"):
        return False
    filename = fn.__code__.co_filename
    return not filename.startswith("<") and os.path.isfile(filename)


def usable() -> bool:
    """Whether shared objects can be cached in this process (Linux, native wrappers)."""
    if not sys.platform.startswith("linux") or "link" in _disabled:
        return False
    from ..codegen.python import callables  # import-time: ctypes only (no LLVM)
    return callables.NATIVE_ARRAYS


# ---------------------------------------------------------------------------------- the key

def environment() -> str:
    """Everything outside a function that decides its compiled code (computed once)."""
    global _environment
    if _environment is None:
        from ..codegen.python import callables  # import-time: ctypes only (no LLVM)
        # as one string each: a few hundred file entries digested token by token cost ms
        _environment = fingerprint.digest(repr((
            FORMAT_VERSION, _source_digest(), _runtime.RT_VERSION, sys.version, sys.platform,
            np.__version__, _llvmlite_build(), _cpu(), callables.LAYOUT,
            callables.NUMPY_LAYOUT)))
    return _environment


def _files(root: str, suffixes: tuple[str, ...], out: list) -> list:
    """(path, size, mtime) of the files under `root` ending in `suffixes` (no __pycache__)."""
    with os.scandir(root) as it:
        for e in sorted(it, key=lambda e: e.name):
            if e.is_dir(follow_symlinks=False):
                if e.name != "__pycache__":
                    _files(e.path, suffixes, out)
            elif e.name.endswith(suffixes):
                st = e.stat()
                out.append((e.path, st.st_size, st.st_mtime_ns))
    return out


def _source_digest() -> list:
    """The size and time of every source file of pyad and its code generator: a compiler
    edited or reinstalled never serves code the old one made."""
    from .. import codegen  # import-time: the package only (its __init__ imports nothing)
    return [_files(os.path.dirname(p.__file__), (".py",), []) for p in (sys.modules["pyad"], codegen)]


def _llvmlite_build() -> list:
    """llvmlite's files (its LLVM is in binding/), found without importing it."""
    import importlib.util  # import-time: the standard library's, already loaded
    spec = importlib.util.find_spec("llvmlite")
    if spec is None or not spec.submodule_search_locations:
        return []
    return _files(list(spec.submodule_search_locations)[0], (".py", ".so"), [])


def _cpu() -> str:
    """The CPU's model and feature flags (the code is compiled for the host CPU)."""
    try:
        with open("/proc/cpuinfo") as fh:
            first = fh.read().split("\n\n")[0]
    except OSError:
        return "unknown"
    keep = ("vendor_id", "cpu family", "model", "model name", "stepping", "flags")
    return "\n".join(line for line in first.splitlines() if line.split(":")[0].strip() in keep)


def key(*parts: Any) -> str | None:
    """The key of a unit from `parts` (the function, the signature, the unit, the options) and
    :func:`environment`; None when the function reaches an object the key cannot digest
    (fingerprint.Uncacheable; any other failure is treated alike: caching must never stop a
    function from compiling)."""
    try:
        return fingerprint.digest(environment(), *parts)
    except Exception:  # noqa: BLE001 -- Uncacheable, or anything odd: compile, do not cache
        _count("uncacheable")
        return None


# ---------------------------------------------------------------------------------- entries

class Entry(NamedTuple):
    """A unit found on disk: the file, what it says of itself, its symbols and kernels, its
    optimized IR (compressed)."""
    path: str
    meta: Any
    exports: tuple[str, ...]
    kernels: dict
    ir_z: bytes
    counted: bool = True

    def llvm_ir(self) -> str:
        return zlib.decompress(self.ir_z).decode()


def _path(k: str, name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "_." else "_" for c in name)[:48] or "pyad"
    return os.path.join(_dir(), f"{safe}-{k[:40]}{SUFFIX}")


def lookup(k: str, name: str, counted: bool = True) -> Entry | None:
    """The entry of key `k`, or None (a miss; a damaged entry is deleted and counted).
    `counted=False`: not a unit (a family of wrappers, api/families.py), left out of
    :func:`stats`."""
    count = _count if counted else (lambda what, n=1: None)
    path = _path(k, name)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        count("misses")
        return None
    except OSError:
        data = b""
    try:
        magic, fmt, kk, n, digest = _TRAILER.unpack_from(data, len(data) - _TRAILER.size)
        if magic != _MAGIC or fmt != FORMAT_VERSION or kk != k.encode() \
                or n > len(data) - _TRAILER.size:
            raise ValueError("not this entry")
        body = memoryview(data)[:len(data) - _TRAILER.size]
        if sha256(body).digest() != digest:
            raise ValueError("checksum")
        blob, exports, kernels, ir_z = pickle.loads(body[len(body) - n:])
        meta = pickle.loads(blob)
    except Exception:  # noqa: BLE001 -- any damage: the entry is rebuilt
        _drop(path)
        count("rejected")
        return None
    try:
        os.utime(path)  # the least recently used entries are evicted first
    except OSError:
        pass
    count("hits")
    return Entry(path, meta, exports, kernels, ir_z, counted)


def reject(entry: Entry) -> None:
    """An entry that failed to load: deleted (it is rebuilt), counted as rejected."""
    _drop(entry.path)
    if not entry.counted:
        return
    with _lock:
        _stats["hits"] -= 1
        _stats["rejected"] += 1


def _drop(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class Slot:
    """Where one unit is being compiled to: the C compiler links it at `path` (a temporary
    file in the cache directory); :meth:`commit` appends the trailer and moves it in place.
    The protocol of `codegen.build.compile_unit(shared=...)`."""

    def __init__(self, k: str, name: str, meta: bytes, counted: bool = True) -> None:
        self.key, self.name, self.meta = k, name, meta
        self.committed, self.counted = False, counted
        d = _dir()
        os.makedirs(d, exist_ok=True)
        import tempfile  # import-time: needed when storing only
        fd, self.path = tempfile.mkstemp(dir=d, prefix=_TMP_PREFIX, suffix=SUFFIX)
        os.close(fd)

    def commit(self, llvm_ir: str, exports, kernels) -> str:
        """Append the trailer and rename the file to its entry; return the path to load."""
        payload = pickle.dumps((self.meta, tuple(exports), kernels,
                                zlib.compress(llvm_ir.encode(), 1)), protocol=4)
        final = _path(self.key, self.name)
        try:
            with open(self.path, "r+b") as fh:
                body = fh.read() + payload
                fh.write(payload)
                fh.write(_TRAILER.pack(_MAGIC, FORMAT_VERSION, self.key.encode(), len(payload),
                                       sha256(body).digest()))
            os.replace(self.path, final)
        except OSError as e:
            _unwritable(_dir(), e)
            return self.path
        self.committed = True
        if self.counted:
            _count("stores")
        _evict(os.path.dirname(final), keep=os.path.basename(final))
        return final

    def discard(self) -> None:
        """Delete the temporary file (nothing once the entry is committed)."""
        if not self.committed:
            _drop(self.path)


def slot(k: str | None, name: str, meta: Any, counted: bool = True) -> Slot | None:
    """A slot to compile the unit of key `k` into, or None: no key, an unwritable directory,
    or a `meta` (what the unit says of itself) that cannot be stored. `counted`: see
    :func:`lookup`."""
    if k is None or _dir() in _disabled:
        return None
    try:
        blob = pickle.dumps(meta, protocol=4)
    except Exception:  # noqa: BLE001 -- e.g. a result class pickle cannot name
        _count("uncacheable")
        return None
    try:
        return Slot(k, name, blob, counted)
    except OSError as e:
        _unwritable(_dir(), e)
        return None


def link_failed(e: Exception) -> None:
    """The C compiler could not link a shared object: no more caching in this process."""
    with _lock:
        first = "link" not in _disabled
        _disabled.add("link")
    if first:
        warnings.warn(f"pyad: cannot link the on-disk cache's shared objects ({e}); caching is "
                      "disabled for this process (install a C compiler, or set CC)",
                      PyadCacheWarning, stacklevel=3)


def _unwritable(d: str, e: OSError) -> None:
    with _lock:
        first = d not in _disabled
        _disabled.add(d)
    if first:
        warnings.warn(f"pyad: the on-disk cache at {d} cannot be written ({e}); caching is "
                      f"disabled for this process (set {ENV_VAR} to a writable directory)",
                      PyadCacheWarning, stacklevel=3)


def _evict(d: str, keep: str) -> None:
    """Delete the least recently used entries while the directory is over its bound (never
    `keep`, the entry just stored)."""
    try:
        bound = int(os.environ.get(ENV_MAX_BYTES) or DEFAULT_MAX_BYTES)
    except ValueError:
        bound = DEFAULT_MAX_BYTES
    try:
        entries = []
        for e in os.scandir(d):
            if _ours(e.name) and e.name != keep:
                st = e.stat()
                entries.append((st.st_mtime_ns, st.st_size, e.path, e.name))
    except OSError:
        return
    total = sum(size for _t, size, _p, _n in entries)
    if total <= bound:
        return
    for _t, size, path, name in sorted(entries):
        if total <= bound * 3 // 4:
            break
        if name.startswith(_TMP_PREFIX) and _t > time.time_ns() - 3600 * 10**9:
            continue  # another process may be writing it
        _drop(path)
        total -= size
        _count("evicted")
