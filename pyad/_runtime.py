"""Locate and load the pyad C runtime (runtime/pyad_rt.c, built by CMake at install time).

The build installs ``libpyad_rt.so``, ``libpyad_rt.a`` and ``pyad_rt.h`` into the package folder
``pyad/_rt``. It is found among the package's folders (``pyad.__path__``, not ``__file__``),
which works for both normal and editable installs: in an editable install ``pyad/__init__.py``
lives in the source tree while ``_rt`` lives in site-packages.

Developers may point the environment variable ``PYAD_RUNTIME`` at another ``libpyad_rt.so``
(e.g. one from a standalone ``cmake -S . -B build/c && cmake --build build/c``); the static
archive and the header are then taken from the same directory. This module is the only place
that reads that variable.

Editable installs do not rebuild the runtime automatically: after changing runtime/*, re-run
``pip install -e .``.
"""
from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

ENV_VAR = "PYAD_RUNTIME"
DIST_NAME = "pyad-compiler"
SHARED_LIBRARY_NAME = "libpyad_rt.so"
STATIC_LIBRARY_NAME = "libpyad_rt.a"
HEADER_NAME = "pyad_rt.h"

# The runtime ABI version this Python code was written against (pyad_rt_version()).
RT_VERSION = 7

_REBUILD_HINT = (
    "Rebuild and reinstall the runtime with `pip install -e .` (or `pip install .`) "
    f"from the pyad source tree, or set {ENV_VAR} to the path of a libpyad_rt.so."
)

# Hand-written from runtime/pyad_rt.h; keep in sync with it (and with codegen/abi.py).
CDEF = """
enum pyad_error_kind {
    PYAD_OK = 0,
    PYAD_ERR_ZERO_DIVISION = 1,
    PYAD_ERR_VALUE = 2,
    PYAD_ERR_INDEX = 3,
    PYAD_ERR_MEMORY = 4,
    PYAD_ERR_RECURSION = 5,
    PYAD_ERR_OVERFLOW = 6,
    PYAD_ERR_RUNTIME = 7,
    PYAD_ERR_LINALG = 8,
    PYAD_ERR_ASSERTION = 9,
    PYAD_ERR_TYPE = 10,
    PYAD_ERR_NOT_IMPLEMENTED = 11,
    PYAD_ERR_ARITHMETIC = 12,
    PYAD_ERR_FLOATING_POINT = 13,
    PYAD_ERR_LOOKUP = 14,
    PYAD_ERR_KEY = 15,
    PYAD_ERR_STRONG_ZEROS = 16
};

typedef struct pyad_ctx {
    int32_t err_kind;
    int32_t err_line;
    const char *err_msg;
    char *tape_base;
    char *tape_top;
    char *tape_end;
    void *arena;
    size_t tape_peak;
} pyad_ctx;

typedef struct pyad_pullback_header {
    char *tape_base;
    char *tape_top;
    char *tape_end;
    void *arena;
    size_t tape_peak;
} pyad_pullback_header;

void pyad_ctx_init(pyad_ctx *ctx);
int32_t pyad_set_error(pyad_ctx *ctx, int32_t kind, int32_t line, const char *msg);
void *pyad_pullback_alloc(size_t size);
void pyad_pullback_free(void *pb);
void *pyad_alloc(pyad_ctx *ctx, size_t bytes, int32_t kind);
void pyad_ctx_release(pyad_ctx *ctx);
void pyad_pullback_zero_shadows(void *pb);
int32_t pyad_index_error(pyad_ctx *ctx, int32_t line, int64_t index, int64_t axis, int64_t size, const char *where);
int32_t pyad_rt_version(void);
double pyad_digamma(double x);
int32_t pyad_tape_grow(pyad_ctx *ctx, size_t need);
void pyad_tape_release(pyad_ctx *ctx);
void pyad_tape_move_to_pullback(pyad_ctx *ctx, void *pb);
size_t pyad_pullback_tape_bytes(const void *pb);
void pyad_tape_cut(pyad_ctx *ctx, int64_t offset);
int32_t pyad_tape_copy_from_pullback(pyad_ctx *ctx, const void *pb);

typedef struct pyad_mat {
    double *data;
    int64_t shape[2];
    int64_t strides[2];
} pyad_mat;

int32_t pyad_la_solve(const pyad_mat *a, const pyad_mat *b, pyad_mat *x);
int32_t pyad_la_inv(const pyad_mat *a, pyad_mat *x);
int32_t pyad_la_det(const pyad_mat *a, double *det);
int32_t pyad_la_slogdet(const pyad_mat *a, double *sign_logabs);
int32_t pyad_la_cholesky(const pyad_mat *a, pyad_mat *l);
int32_t pyad_la_trisolve(const pyad_mat *t, const pyad_mat *b, pyad_mat *x, int32_t lower);
int32_t pyad_la_eigh(const pyad_mat *a, pyad_mat *out);
int32_t pyad_la_tril_half(const pyad_mat *x, pyad_mat *out);
int32_t pyad_la_tril_fold(const pyad_mat *x, pyad_mat *out);
int32_t pyad_la_eigh_mid(const pyad_mat *w, const pyad_mat *wbar, const pyad_mat *x,
                         pyad_mat *out);
int32_t pyad_la_svd(const pyad_mat *a, pyad_mat *out);
int32_t pyad_la_svd_back(const pyad_mat *p, const pyad_mat *ct, const pyad_mat *a,
                         pyad_mat *out);
int32_t pyad_la_qr(const pyad_mat *a, pyad_mat *out);
int32_t pyad_la_qr_back(const pyad_mat *p, const pyad_mat *ct, const pyad_mat *a,
                        pyad_mat *out);
int32_t pyad_matmul(const pyad_mat *a, const pyad_mat *b, pyad_mat *c);
"""

_lock = threading.Lock()
_ffi: Any = None
_lib: Any = None
_dll: Any = None


def _override() -> str | None:
    """The developer override from $PYAD_RUNTIME, or None (the only read of that variable)."""
    value = os.environ.get(ENV_VAR)
    if not value:
        return None
    return os.path.abspath(os.path.expanduser(value))


def _as_path(path: str) -> Path:
    from pathlib import Path  # import-time: ~8 ms (urllib, ipaddress); a cache hit needs none
    return Path(path)


def _runtime_dir() -> str:
    override = _override()
    if override is not None:
        return os.path.dirname(override)
    # the package's folders (an editable install lists site-packages' pyad too)
    folders = [os.path.join(f, "_rt") for f in sys.modules[__package__].__path__]
    for rt in folders:
        if os.path.isdir(rt):
            return rt
    rt = folders[0]
    # `pyad` was imported from a source checkout that is not the installed copy (e.g.
    # `python -m pytest` in the repo after a non-editable `pip install .`, since the current
    # directory comes first on sys.path): use the runtime of the installed distribution.
    from importlib import metadata  # import-time: ~30 ms, needed only in this rare case
    try:
        installed = str(metadata.distribution(DIST_NAME).locate_file("pyad/_rt"))
    except metadata.PackageNotFoundError:
        return rt
    return installed if os.path.isdir(installed) else rt


def runtime_dir() -> Path:
    """The folder holding the runtime files: pyad/_rt of the installed package, or the folder
    of $PYAD_RUNTIME when that is set."""
    return _as_path(_runtime_dir())


def _require(path: str, what: str) -> str:
    if not os.path.isfile(path):
        if _override() is not None:
            where = f"{ENV_VAR}={os.environ[ENV_VAR]}"
        else:
            where = "the installed package"
        raise RuntimeError(f"pyad C runtime {what} not found at {path} (from {where}). {_REBUILD_HINT}")
    return path


def _library_file() -> str:
    override = _override()
    path = override if override is not None else os.path.join(_runtime_dir(), SHARED_LIBRARY_NAME)
    return _require(path, "shared library")


def library_path() -> Path:
    """Path of the shared runtime library (libpyad_rt.so). Raises RuntimeError if missing."""
    return _as_path(_library_file())


def static_library_path() -> Path:
    """Path of the static runtime archive (libpyad_rt.a), used when linking AOT libraries."""
    return _as_path(_require(os.path.join(_runtime_dir(), STATIC_LIBRARY_NAME), "static library"))


def header_path() -> Path:
    """Path of the runtime header (pyad_rt.h)."""
    return _as_path(_require(os.path.join(_runtime_dir(), HEADER_NAME), "header"))


def _open(opener) -> Any:
    """`opener(path)` on the runtime library, version-checked: RuntimeError if the library is
    missing, cannot be loaded, or has the wrong ABI version."""
    path = _library_file()
    try:
        handle = opener(path)
    except OSError as e:
        raise RuntimeError(f"cannot load the pyad C runtime {path}: {e}. {_REBUILD_HINT}") from e
    version = handle.pyad_rt_version()
    if version != RT_VERSION:
        raise RuntimeError(
            f"pyad C runtime {path} has ABI version {version}, expected {RT_VERSION} "
            f"(stale build?). {_REBUILD_HINT}"
        )
    return handle


def dll() -> Any:
    """The runtime opened with ctypes, version-checked, cached per process: what compiled code
    and pullbacks need (symbol addresses; pullback free, tape bytes, shadow zeroing), without
    the ~80 ms of parsing the cffi declarations that :func:`lib` costs on first use. It is
    opened with RTLD_GLOBAL: the shared objects of the on-disk cache find its symbols there."""
    global _dll
    with _lock:
        if _dll is None:
            import ctypes

            handle = _open(lambda path: ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL))
            for name, restype in (("pyad_pullback_free", None),
                                  ("pyad_pullback_zero_shadows", None),
                                  ("pyad_pullback_tape_bytes", ctypes.c_size_t)):
                fn = getattr(handle, name)
                fn.argtypes, fn.restype = [ctypes.c_void_p], restype
            _dll = handle
        return _dll


def ffi() -> Any:
    """The process-wide cffi FFI declaring the runtime API (created on first use)."""
    global _ffi
    with _lock:
        if _ffi is None:
            import cffi

            f = cffi.FFI()
            f.cdef(CDEF)
            _ffi = f
        return _ffi


def lib() -> Any:
    """The runtime opened with cffi (``ffi().dlopen(library_path())``), version-checked,
    cached per process: for the slow-path array calls of codegen/python/cffi_call.py and the runtime's
    tests (compiled code itself only needs :func:`dll`).

    The first call decides which library is used; later changes of $PYAD_RUNTIME have no effect.
    """
    global _lib
    f = ffi()
    with _lock:
        if _lib is None:
            _lib = _open(f.dlopen)
        return _lib