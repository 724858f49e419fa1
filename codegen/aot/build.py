"""Ahead-of-time build of a self-contained C library (`pyad compile`).

    kernels (one LLVM module, llvmlite)  -> kernels.o      (PIC, small code model)
    wrappers (cwrap.py, C)         --cc--> api.o           (hidden visibility, API default)
    kernels.o + api.o + libpyad_rt.a --cc -r--> NAME.o     (one relocatable object)
    objcopy --keep-global-symbols: every symbol but the API becomes local in NAME.o
    NAME.o --cc -shared, version script--> libNAME.so;  NAME.o --ar--> libNAME.a;  NAME.h

Only the documented, prefixed functions are global in NAME.o (so a static link cannot clash
with another library either) and exported from libNAME.so; the runtime is a private copy.
The library needs libc and libm, nothing else (no Python).

Tools: $CC (default `cc`), $AR (`ar`), $OBJCOPY (`objcopy`). Failures raise `BuildError` with
a one-line message; `log` receives the commands and timings.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import llvmlite.binding as llvm
from llvmlite import ir

from pyad import _runtime
from pyad.errors import PyadInternalError
from pyad.ir.nodes import F64, is_array

from . import capi, header as cheader, cvmap, cwrap
from .. import jit
from ..build import KernelSpec
from ..entry import emit_entry
from ..lower.emit import ModuleState, emit_kernel

OPT_LEVEL = 2  # the JIT's level: the same optimizations, so the same results


class BuildError(Exception):
    """The C toolchain or the target failed; the message is one line."""


def default_cpu() -> str:
    """A portable baseline for the host's architecture: x86-64-v2 (SSE4.2, POPCNT; any x86-64
    CPU since about 2009) on x86-64, LLVM's generic CPU elsewhere."""
    triple = jit.host_cpu()[0]
    return "x86-64-v2" if triple.startswith(("x86_64", "amd64")) else "generic"


def resolve_cpu(cpu: str | None) -> tuple[str | None, str | None]:
    """(cpu, features) for jit.emit_object: None/None for 'native' (the host CPU and its
    features); otherwise a CPU name LLVM knows (checked: LLVM aborts the process on some
    unknown names)."""
    if cpu == "native":
        return None, None
    cpu = cpu or default_cpu()
    triple = jit.host_cpu()[0]
    with jit.COMPILE_LOCK:
        err = _capture_stderr(lambda: llvm.Target.from_triple(triple).create_target_machine(
            cpu=cpu, features="", opt=OPT_LEVEL, reloc="pic", codemodel="small"))
    if "not a recognized processor" in err:
        raise BuildError(f"unknown CPU {cpu!r} for {triple} (use e.g. x86-64-v2, x86-64-v3, "
                         "x86-64-v4, a CPU name such as skylake or znver3, or native)")
    return cpu, ""


def _capture_stderr(thunk: Callable[[], object]) -> str:
    """What native code writes to file descriptor 2 while `thunk` runs."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            thunk()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        return tmp.read().decode(errors="replace")


# -------------------------------------------------------------------------------- kernels

def _kernel_specs(e: capi.Entry) -> list[tuple[str, KernelSpec]]:
    specs = [("primal", KernelSpec("primal", e.func))]
    if e.mode == "grad":
        specs.append(("vg", KernelSpec("vg", e.gradient.fused)))
    elif e.mode == "vjp":
        g = e.gradient.g
        specs.append(("fwd", KernelSpec("fwd", g.fwd, pack_saved=len(g.saved))))
        specs.append(("bwd", KernelSpec("bwd", g.bwd, unpack_saved=len(g.saved))))
    return specs


def _expected_kinds(e: capi.Entry, kind: str) -> tuple[list[str], list[str]]:
    """The kernel parameter kinds the wrappers (cwrap.py) are written for."""
    params, results = list(e.param_types), list(e.result_types)
    shadows = [params[i] for i in e.wrt if is_array(params[i])]
    grads = [params[i] for i in e.wrt]
    cts = [t for t in results if t == F64 or (is_array(t) and t.startswith(F64))]
    return {
        "primal": (params, results),
        "vg": (params + shadows, [F64] + grads),
        "fwd": (params + shadows, results + ["ptr"]),
        "bwd": (["ptr"] + cts, grads),
    }[kind]


def kernel_module(lib: str, entries: list[capi.Entry],
                  max_depth: int | None = None) -> tuple[ir.Module, dict]:
    """One LLVM module with every kernel; returns it and {(entry index, kind): cwrap.Kernel}.
    Kernel symbols are `pyadk.<i>.<kind>` (a dot: no C name can equal them). `max_depth`:
    the call-depth limit of natively called functions (see emit.ModuleState)."""
    module = ir.Module(name=f"pyad.aot.{lib}")
    state = ModuleState(module, max_depth)
    kernels: dict[tuple[int, str], cwrap.Kernel] = {}
    for i, e in enumerate(entries):
        for kind, spec in _kernel_specs(e):
            symbol = f"pyadk.{i}.{kind}"
            fn = emit_kernel(state, spec.func, symbol, boundscheck=True,
                             pack_saved=spec.pack_saved, unpack_saved=spec.unpack_saved)
            params, outs = spec.kinds()
            if (list(params), list(outs)) != tuple(map(list, _expected_kinds(e, kind))):
                raise PyadInternalError(
                    f"internal compiler error: the {kind} kernel of {e.pyname} has parameters "
                    f"{params} -> {outs}, expected {_expected_kinds(e, kind)}")
            entry = None
            if e.vmap and kind in ("primal", "vg"):  # run by pyad_batch_run (cvmap.py)
                entry = emit_entry(module, fn, params, outs).name
            kernels[(i, kind)] = cwrap.Kernel(symbol, tuple(params), tuple(outs), entry)
    return module, kernels


def llvm_ir(lib: str, entries: list[capi.Entry], cpu: str | None,
            max_depth: int | None = None) -> str:
    """The optimized LLVM IR of the library's kernels, for the target CPU."""
    module, _ = kernel_module(lib, entries, max_depth)
    cpu_name, features = resolve_cpu(cpu)
    return jit.optimized_ir(module, cpu=cpu_name, features=features, opt=OPT_LEVEL)


# -------------------------------------------------------------------------------- toolchain

def _tool(env: str, default: str) -> list[str]:
    cmd = shlex.split(os.environ.get(env) or default)
    if not cmd or shutil.which(cmd[0]) is None:
        raise BuildError(f"{(cmd or [default])[0]!r} not found: pyad compile needs a C compiler "
                         f"and binutils on PATH (set ${env} to use another {default})")
    return cmd


@dataclass
class _Runner:
    log: Callable[[str], None]

    def __call__(self, cmd: list[str], what: str) -> None:
        self.log(shlex.join(cmd))
        t = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as exc:
            raise BuildError(f"{what} failed: cannot run {cmd[0]}: {exc.strerror}") from None
        self.log(f"  {what}: {1e3 * (time.perf_counter() - t):.0f} ms")
        output = (proc.stderr + proc.stdout).strip()
        if output:
            self.log(output)
        if proc.returncode != 0:
            first = next((ln for ln in output.splitlines() if "error" in ln.lower()),
                         output.splitlines()[0] if output else f"exit status {proc.returncode}")
            raise BuildError(f"{what} failed ({shlex.join(cmd[:1])}): {first.strip()}")


def build(lib: str, entries: list[capi.Entry], outdir: Path, *, cpu: str | None, emit: str,
          source: str, command: str, log: Callable[[str], None] = lambda _: None,
          max_depth: int | None = None) -> list[Path]:
    """Build the library into `outdir` (which exists and is writable). `emit` is 'so'
    (libNAME.so, libNAME.a, NAME.h) or 'obj' (NAME.o, NAME.h). Returns the files written.
    `max_depth`: the call-depth limit of natively called functions (emit.ModuleState)."""
    cc, ar, objcopy = _tool("CC", "cc"), _tool("AR", "ar"), _tool("OBJCOPY", "objcopy")
    try:
        rt_archive, rt_header = _runtime.static_library_path(), _runtime.header_path()
    except RuntimeError as exc:
        raise BuildError(str(exc).splitlines()[0]) from None
    cpu_name, features = resolve_cpu(cpu)
    run = _Runner(log)
    fns = capi.functions(lib, entries)
    exports = capi.exported_symbols(lib, entries)
    header = cheader.render(lib, entries, source=source, command=command)

    t = time.perf_counter()
    module, kernels = kernel_module(lib, entries, max_depth)
    obj = jit.emit_object(module, cpu=cpu_name, features=features, opt=OPT_LEVEL)
    log(f"LLVM: {len(kernels)} kernels, {len(obj)} bytes of object code for cpu "
        f"{cpu_name or 'native'} in {1e3 * (time.perf_counter() - t):.0f} ms")
    index = {id(e): i for i, e in enumerate(entries)}
    wrappers = cwrap.render(lib, [f for f in fns if not f.batched], kernels, index) \
        + cvmap.render([f for f in fns if f.batched], kernels, index)

    outdir = Path(outdir)
    with tempfile.TemporaryDirectory(prefix=".pyad-build-", dir=outdir) as tmpname:
        tmp = Path(tmpname)
        (tmp / f"{lib}.h").write_text(header)
        (tmp / "kernels.o").write_bytes(obj)
        (tmp / f"{lib}_api.c").write_text(wrappers)
        (tmp / "exports.txt").write_text("".join(f"{s}\n" for s in exports))
        (tmp / f"{lib}.map").write_text(
            "{\n  global:\n" + "".join(f"    {s};\n" for s in exports) + "  local:\n    *;\n};\n")
        run(cc + ["-std=c11", "-O2", "-fPIC", "-fvisibility=hidden", "-Wall", "-Wextra",
                  f"-I{tmp}", f"-I{rt_header.parent}", "-c", str(tmp / f"{lib}_api.c"),
                  "-o", str(tmp / "api.o")], "compiling the C wrappers")
        combined = tmp / f"{lib}.o"
        run(cc + ["-r", "-nostdlib", "-o", str(combined), str(tmp / "kernels.o"),
                  str(tmp / "api.o"), str(rt_archive)], "partial link with the runtime")
        run(objcopy + [f"--keep-global-symbols={tmp / 'exports.txt'}", str(combined)],
            "hiding internal symbols")
        made = [tmp / f"{lib}.h"]
        if emit == "obj":
            made.append(combined)
        else:
            so, archive = tmp / f"lib{lib}.so", tmp / f"lib{lib}.a"
            run(cc + ["-shared", "-o", str(so), str(combined),
                      f"-Wl,--version-script={tmp / f'{lib}.map'}", "-Wl,--no-undefined",
                      f"-Wl,-soname,lib{lib}.so", "-Wl,-z,noexecstack", "-lm", "-pthread"],
                "linking the shared library")
            run(ar + ["rcs", str(archive), str(combined)], "making the static archive")
            made += [so, archive]
        written = []
        for f in made:
            dest = outdir / f.name
            os.replace(f, dest)
            written.append(dest)
    return written
