"""The `pyad` command (also `python -m pyad`).

    pyad compile model.py:f,g --sig "f64(f64[:], i64)" --sig "(f64, f64[:])(f64[:])" -o out
         [--name NAME] [--emit ir|grad-ir|llvm|obj|so] [--cpu native|x86-64-v3|...] [--vmap]
         [-v]

writes out/libNAME.so, out/libNAME.a and out/NAME.h (see docs/aot.md). `--emit ir`, `grad-ir`
and `llvm` print the primal IR, the gradient IR or the optimized LLVM IR instead; `obj` writes
NAME.o (the self-contained object the archive holds) and NAME.h.

Functions: `FUNC` or `FUNC=ALIAS` (exported as NAME_ALIAS). A function listed several times
without aliases is exported once per signature as NAME_FUNC__<argument types>, e.g.
`mylib_norm__f64a1` and `mylib_norm__f64a2` (capi.mangle).

Every problem is reported as one line on stderr (`file:line: error: ...` where a place in
the user's code applies); `-v` adds timings, the toolchain commands and, for internal errors,
the traceback. The exit statuses are the table of docs/aot.md ("Exit status"): EXIT_OK,
EXIT_INPUT, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE below.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.machinery
import importlib.util
import inspect
import os
import shlex
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NoReturn

from .. import pipeline, pytree
from . import sigparse
from ..api.jit import JitGrad
from ..codegen.aot import capi
from ..errors import PyadError, PyadInternalError, PyadSyntaxError
from ..ir.nodes import F64, elem_type
from .sigparse import SignatureError

PROG = "pyad"
EMITS = ("so", "obj", "ir", "grad-ir", "llvm")

# Exit statuses (docs/aot.md, "Exit status").
EXIT_OK = 0
EXIT_INPUT = 1          # the input cannot be compiled: file, source, signature, option values
EXIT_USAGE = 2          # the command line is malformed (argparse's status for its own errors)
EXIT_INTERNAL = 70      # a bug in pyad (EX_SOFTWARE of sysexits.h)
EXIT_INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as a shell reports it
EXIT_BROKEN_PIPE = 141  # stdout closed early (`| head`): 128 + SIGPIPE, as a shell reports it


class CliError(Exception):
    """A problem with the user's input; `where` is a 'file[:line[:col]]' prefix or None."""

    status = EXIT_INPUT

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.message, self.where = message, where


class UsageError(CliError):
    """A malformed command line: what argparse checks, plus the checks it cannot express
    (a required option, the form of the target, one --sig per function)."""

    status = EXIT_USAGE


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line instead of usage + message
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _version() -> str:
    from importlib import metadata
    try:
        return metadata.version("pyad-compiler")
    except metadata.PackageNotFoundError:
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(prog=PROG, description="pyad: reverse-mode AD compiler for numerical "
                        "Python.")
    p.add_argument("--version", action="version", version=f"pyad-compiler {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    c = sub.add_parser(
        "compile", help="compile functions and their gradients into a C library",
        description="Compile Python functions, their gradients and vector-Jacobian products "
        "ahead of time into a self-contained C library: libNAME.so, libNAME.a and NAME.h.",
        epilog='example: pyad compile model.py:energy --sig "f64(f64[:], i64)" -o build. '
        "Exit status: 0 success, 1 input that cannot be compiled, 2 malformed command line, "
        "70 internal error, 130 interrupted, 141 stdout closed early (docs/aot.md).")
    c.add_argument("target", metavar="MODULE.py:FUNC[,FUNC...]",
                   help="the module and its functions; FUNC=ALIAS exports FUNC as NAME_ALIAS")
    c.add_argument("--sig", action="append", default=[], metavar="SIG",
                   help='a Numba-style signature, e.g. "f64(f64[:], i64)"; one per function, in '
                   "order")
    c.add_argument("-o", "--output", dest="outdir", metavar="OUTDIR",
                   help="output directory (created if needed); required by --emit so and obj")
    c.add_argument("--name", help="library name and prefix of every exported symbol "
                   "(default: the module's file name)")
    c.add_argument("--emit", choices=EMITS, default="so",
                   help="so: libNAME.so, libNAME.a, NAME.h (default); obj: NAME.o, NAME.h; "
                   "ir, grad-ir, llvm: print the primal IR, gradient IR or LLVM IR")
    c.add_argument("--cpu", metavar="CPU",
                   help="target CPU: an LLVM name such as x86-64-v3 or skylake, or native "
                   "(default: x86-64-v2, which runs on any x86-64 CPU of the last 15 years)")
    c.add_argument("--vmap", action="store_true",
                   help="also export batched versions of each function (NAME_FUNC_vmap, and "
                   "_vmap_grad, _vmap_grad_sum for a gradient) that run a batch on native "
                   "threads")
    c.add_argument("-v", "--verbose", action="store_true",
                   help="print timings and toolchain commands to stderr")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `pyad` script. Returns the exit status.

    A reader that closes stdout early (`pyad compile ... --emit grad-ir | head`) ends the
    command quietly with EXIT_BROKEN_PIPE. stdout is flushed here, so that a closed pipe shows
    up inside this function and not when the interpreter exits; then stdout is pointed at
    /dev/null, so that the interpreter's own flush at exit cannot fail again (the recipe of
    the Python documentation, "Note on SIGPIPE" in the `signal` module)."""
    try:
        try:
            return _main(sys.argv[1:] if argv is None else list(argv))
        finally:  # also after argparse's SystemExit (--help)
            sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_BROKEN_PIPE


def _discard_stdout() -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):  # no real file: nothing to do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.command is None:
        print(f"{PROG}: error: missing command; use `{PROG} compile ...` (see {PROG} --help)",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        return _compile(args, argv)
    except CliError as exc:
        _error(exc.message, exc.where)
        return exc.status
    except KeyboardInterrupt:
        print(f"{PROG} compile: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        raise  # main() ends quietly
    except Exception as exc:  # noqa: BLE001 -- every failure becomes one line
        return _report(exc, args.verbose)


def _error(message: str, where: str | None = None) -> None:
    text = " ".join(message.split("\n")[0].split()) if "\n" in message else message
    prefix = f"{where}: error:" if where else f"{PROG} compile: error:"
    print(f"{prefix} {text}", file=sys.stderr)


def _report(exc: Exception, verbose: bool) -> int:
    """One line for an exception raised while compiling; returns the exit status."""
    from ..codegen.aot.build import BuildError  # import-time: aot loads llvmlite (40-80 ms)

    if isinstance(exc, PyadSyntaxError):
        lines = str(exc).splitlines()
        print(lines[0], file=sys.stderr)  # file:line:col: error: ...
        if verbose:
            print("\n".join(lines[1:]), file=sys.stderr)
        return EXIT_INPUT
    if isinstance(exc, (SignatureError, BuildError)) or (
            isinstance(exc, PyadError) and not isinstance(exc, PyadInternalError)):
        _error(str(exc))
        return EXIT_INPUT
    text = str(exc).splitlines()[0] if str(exc) else ""
    hint = "" if verbose else " (run with -v for the traceback)"
    print(f"{PROG} compile: internal error: {type(exc).__name__}: {text}{hint}", file=sys.stderr)
    if verbose:
        traceback.print_exception(exc)
    return EXIT_INTERNAL


# ------------------------------------------------------------------------------- the steps

@dataclass
class _Item:
    func: str     # Python name
    alias: str | None


def _split_target(target: str) -> tuple[Path, list[_Item]]:
    path, sep, names = target.rpartition(":")
    if not sep or not path:
        raise UsageError(f"expected MODULE.py:FUNC[,FUNC...], got {target!r}")
    items = []
    for part in names.split(","):
        part = part.strip()
        func, eq, alias = (s.strip() for s in part.partition("="))
        if not func or (eq and not alias):
            raise UsageError(f"empty function name in {target!r}" if not func else
                             f"empty alias in {part!r}; write FUNC=ALIAS")
        if not func.isidentifier():
            raise UsageError(f"{func!r} is not a Python function name (in {target!r})")
        if eq and not capi.is_c_identifier(alias):
            raise UsageError(f"alias {alias!r} is not a C identifier (letters, digits, _)")
        items.append(_Item(func, alias if eq else None))
    return Path(path), items


def _library_name(name: str | None, path: Path) -> str:
    if name is None:
        name = path.stem
        if not capi.is_c_identifier(name) or name in capi.RESERVED:
            raise CliError(f"cannot use the file name {path.name!r} as the library name (not a "
                           "C identifier); give one with --name")
    elif not capi.is_c_identifier(name) or name in capi.RESERVED:
        raise CliError(f"--name {name!r} is not a valid library name: use a C identifier "
                       "(letters, digits and _, not starting with a digit, not a keyword)")
    if name.lower() in ("pyad", "pyadk"):
        raise CliError(f"the library name {name!r} is reserved for pyad's runtime; choose "
                       "another --name")
    if name in _SYSTEM_LIBRARIES:
        raise CliError(f"the library name {name!r} would make lib{name}.so, the name of a "
                       "system library; choose another --name")
    return name


# lib<name>.so of the C toolchain and libc: a library of that name would shadow it.
_SYSTEM_LIBRARIES = frozenset(
    "c m dl rt pthread util gcc gcc_s crypt resolv nsl z atomic gomp quadmath ssp mvec "
    "anl".split())


def _prepare_outdir(outdir: str) -> Path:
    p = Path(outdir)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise CliError(f"cannot create output directory {outdir}: a file of that name "
                       "exists") from None
    except OSError as exc:
        raise CliError(f"cannot create output directory {outdir}: "
                       f"{exc.strerror or exc}") from None
    try:
        with tempfile.TemporaryFile(dir=p):
            pass
    except OSError as exc:
        raise CliError(f"cannot write to output directory {outdir}: "
                       f"{exc.strerror or exc}") from None
    return p


def _load_module(path: Path) -> Any:
    if not path.exists():
        raise CliError(f"no such file: {path}")
    if not path.is_file():
        raise CliError(f"not a file: {path}")
    stem = path.stem
    name = stem if stem.isidentifier() and stem not in sys.modules else \
        f"_pyad_user_{abs(hash(str(path.resolve())))}"
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        with contextlib.redirect_stdout(sys.stderr):  # keep --emit output clean
            loader.exec_module(module)
    except SyntaxError as exc:
        where = f"{exc.filename or path}:{exc.lineno or 0}" + (f":{exc.offset}" if exc.offset
                                                              else "")
        raise CliError(exc.msg or "invalid syntax", where) from None
    except (Exception, SystemExit) as exc:
        line = _line_in(exc, path)
        raise CliError(f"importing {path.name} raised {type(exc).__name__}: "
                       f"{str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": "),
                       f"{path}:{line}" if line else str(path)) from None
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(path.parent.resolve()))
    return module


def _line_in(exc: BaseException, path: Path) -> int | None:
    target = str(path.resolve())
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        with contextlib.suppress(OSError):
            if str(Path(frame.f_code.co_filename).resolve()) == target:
                line = lineno
    return line


def _function(module: Any, path: Path, name: str) -> Callable:
    missing = object()
    obj = getattr(module, name, missing)
    if obj is missing:
        defined = sorted(n for n, v in vars(module).items() if not n.startswith("_") and (
            inspect.isfunction(v) or isinstance(v, JitGrad))
            and getattr(v, "__module__", None) == module.__name__)
        also = f" (it defines: {', '.join(defined)})" if defined else " (it defines no function)"
        raise CliError(f"no function {name!r} in {path}{also}", str(path))
    if isinstance(obj, JitGrad):
        obj = obj.fn
    if not inspect.isfunction(obj):
        raise CliError(f"{name!r} in {path} is a {type(obj).__name__}, not a Python function",
                       str(path))
    return obj


def _location(fn: Callable, path: Path) -> str:
    file = fn.__code__.co_filename
    with contextlib.suppress(OSError):
        if Path(file).resolve() == path.resolve():
            file = str(path)
    return f"{file}:{fn.__code__.co_firstlineno}"


def _constants(t) -> list:
    """The compile-time values (strings, None) in a result's structure `t`."""
    if isinstance(t, pytree.Record):
        return [t] if t.kind in ("str", "none") else [c for e in t.children
                                                       for c in _constants(e)]
    return [c for e in t for c in _constants(e)] if isinstance(t, tuple) else []


def _entry(fn: Callable, item: _Item, sig_text: str, path: Path, want_gradient: bool,
           vmap: bool):
    sig = sigparse.parse(sig_text)
    where = _location(fn, path)
    plain = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for p in inspect.signature(fn).parameters.values():
        if p.kind not in plain or p.default is not inspect.Parameter.empty:
            what = {inspect.Parameter.VAR_POSITIONAL: f"parameter *{p.name}",
                    inspect.Parameter.VAR_KEYWORD: f"parameter **{p.name}",
                    inspect.Parameter.KEYWORD_ONLY: f"keyword-only parameter {p.name!r}"
                    }.get(p.kind, f"default value for {p.name!r}")
            raise CliError(f"{item.func}{inspect.signature(fn)} has a {what}: pyad compiles "
                           "functions whose parameters are plain positional ones without "
                           "defaults", where)
    params = list(inspect.signature(fn).parameters)
    if len(sig.args) != len(params):
        n = len(sig.args)
        raise CliError(f"--sig {sig_text!r} gives {n} argument{'s' if n != 1 else ''} but "
                       f"{item.func}({', '.join(params)}) takes {len(params)}", where)
    func, shape = pipeline.primal_ir(fn, sig.args)
    inferred = pytree.gather(shape, [r.type for r in func.results])
    constants = _constants(inferred)
    if constants:
        raise CliError(f"{item.func} returns a {constants[0].describe()}: the results of a C "
                       "library function are numbers and arrays (and tuples of them)", where)
    if inferred != sig.result:
        raise CliError(f"{item.func} returns {sigparse.spell(inferred)} for arguments "
                       f"({', '.join(sigparse.spell(a) for a in sig.args)}), but --sig "
                       f"{sig_text!r} declares {sigparse.spell(sig.result)}", where)
    wrt = tuple(i for i, t in enumerate(sig.args) if elem_type(t) == F64)
    e = capi.Entry(pyname=item.func, base=item.alias or item.func, sig=sig,
                   func=pipeline.native(func),
                   shape=shape, location=where, wrt=wrt, vmap=vmap)
    if want_gradient and e.mode is not None:
        e.gradient = pipeline.gradient_ir(func, wrt, inline=True)  # no Python to ask
    return e


def _name_entries(lib: str, entries: list, items: list[_Item]) -> None:
    """Give repeated functions (without an alias) a signature suffix; refuse clashes."""
    seen: set = set()
    for e, it in zip(entries, items):
        key = (e.pyname, it.alias, e.sig.args)
        if key in seen:
            raise CliError(f"{e.pyname} is listed twice with the signature {e.sig}", e.location)
        seen.add(key)
    counts: dict[str, int] = {}
    for e, it in zip(entries, items):
        if it.alias is None:
            counts[e.base] = counts.get(e.base, 0) + 1
    for e, it in zip(entries, items):
        if it.alias is None and counts[e.base] > 1:
            e.base = e.base + capi.mangle(e.sig.args)
        if not capi.is_c_identifier(e.base):
            raise CliError(f"function name {e.base!r} is not an ASCII C identifier; export it "
                           f"under another name with {e.pyname}=ALIAS", e.location)
    from ..codegen.aot.header import STATUS  # import-time: the header module loads llvmlite (40-80 ms)
    reserved = {s: "the library's own API" for s in capi.helper_symbols(lib)}
    reserved.update({f"{lib.upper()}_{suffix}": "a status code of the header"
                     for suffix, _ in STATUS})
    reserved[f"{lib.upper()}_H_INCLUDED"] = "the header's include guard"
    owner: dict[str, str] = {}
    for f in capi.functions(lib, entries):
        what = f"{'' if f.kind == 'primal' else f.kind + ' of '}{f.entry.pyname} " \
               f"({f.entry.sig})"
        if f.symbol in reserved:
            raise CliError(f"{what} would be exported as {f.symbol}, which is reserved for "
                           f"{reserved[f.symbol]}; export it under another name with "
                           f"{f.entry.pyname}=ALIAS", f.entry.location)
        if f.symbol in owner:
            raise CliError(f"two exports would be named {f.symbol}: {owner[f.symbol]} and "
                           f"{what}; list the functions with distinct aliases (FUNC=ALIAS)",
                           f.entry.location)
        owner[f.symbol] = what


def _compile(args: argparse.Namespace, argv: list[str]) -> int:
    t0 = time.perf_counter()
    log: Callable[[str], None] = (lambda m: print(f"{PROG} compile: {m}", file=sys.stderr)) \
        if args.verbose else (lambda m: None)
    path, items = _split_target(args.target)
    if not args.sig:
        raise UsageError("missing --sig: give one signature per function, e.g. "
                         "--sig \"f64(f64[:], i64)\"")
    if len(args.sig) != len(items):
        names = ", ".join(it.func for it in items)
        raise UsageError(f"{len(items)} function{'s' if len(items) != 1 else ''} ({names}) "
                         f"but {len(args.sig)} --sig; give one --sig per function, in order")
    emit = args.emit
    builds = emit in ("so", "obj")
    if builds and not args.outdir:
        raise UsageError(f"-o OUTDIR is required with --emit {emit}")
    for text in args.sig:
        sigparse.parse(text)  # syntax errors before any work
    native = emit in ("so", "obj", "llvm")
    lib = _library_name(args.name, path) if native else (args.name or "lib")
    if not path.is_file():
        raise CliError(f"no such file: {path}" if not path.exists() else f"not a file: {path}")
    outdir = _prepare_outdir(args.outdir) if builds else None
    from ..codegen.aot import build as aot  # import-time: llvmlite (40-80 ms) only once the input is valid
    cpu = args.cpu
    if native:
        aot.resolve_cpu(cpu)  # an unknown CPU is refused before any work

    module = _load_module(path)
    log(f"imported {path} in {1e3 * (time.perf_counter() - t0):.0f} ms")
    fns = [_function(module, path, it.func) for it in items]
    t1 = time.perf_counter()
    entries = [_entry(fn, it, s, path, emit != "ir", args.vmap)
               for fn, it, s in zip(fns, items, args.sig)]
    _name_entries(lib, entries, items)
    log(f"IR and gradients of {len(entries)} function(s) in "
        f"{1e3 * (time.perf_counter() - t1):.0f} ms")

    if emit == "ir":
        print("\n\n".join(str(e.func) for e in entries))
    elif emit == "grad-ir":
        parts = []
        for e in entries:
            if e.gradient is None:
                parts.append(f"; {e.pyname}: no gradient (no f64 argument or no f64 result)")
                continue
            g = e.gradient
            parts += [str(g.g.fwd), str(g.g.bwd)] + ([str(g.fused)] if e.mode == "grad" else [])
        print("\n\n".join(parts))
    elif emit == "llvm":
        print(aot.llvm_ir(lib, entries, cpu, pipeline.max_call_depth()), end="")
    else:
        command = shlex.join([PROG] + argv)
        written = aot.build(lib, entries, outdir, cpu=cpu, emit=emit, source=str(path),
                            command=command, log=log, max_depth=pipeline.max_call_depth())
        for f in written:
            log(f"wrote {f} ({f.stat().st_size} bytes)")
    log(f"done in {1e3 * (time.perf_counter() - t0):.0f} ms")
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
