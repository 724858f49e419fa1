"""codegen.jit + codegen.python.wrap with small hand-built kernels that follow the kernel ABI
(codegen/abi.py): ``i32 kernel(ptr ctx, <inputs>..., ptr out_0, ...)``."""
from __future__ import annotations

import ctypes
import gc
import subprocess
import sys
import weakref

import numpy as np
import pytest
from llvmlite import ir

from pyad.codegen import abi, jit
from pyad.codegen.python import wrap as pywrap

from ..concurrency import run_together

I32, I64, F64, I8, I1, PTR = abi.I32, abi.I64, abi.F64, abi.I8, abi.I1, abi.PTR
OK = ir.Constant(I32, 0)


def make_kernel(module, name, params, outs, body):
    """Define `i32 name(ptr ctx, params..., ptr outs...)`; body(b, ctx, ins, outs) emits the
    code and returns the status value."""
    fty = ir.FunctionType(I32, [PTR] + [pywrap.INPUT_KINDS[k] for k in params] + [PTR] * len(outs))
    fn = ir.Function(module, fty, name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    ctx, rest = fn.args[0], fn.args[1:]
    b.ret(body(b, ctx, rest[:len(params)], rest[len(params):]))
    return fn


def build(params, outs, result, body, *, doc="", fallback=None, name="w", opt=2, fastmath=False):
    """Compile one kernel + wrapper; return (callable, library)."""
    m = ir.Module(f"test_{name}")
    k = make_kernel(m, f"k_{name}", params, outs, body)
    sym = pywrap.emit_wrapper(m, k, name=name, params=params, outs=outs, result=result, doc=doc,
                              pyname=name)
    lib = jit.compile_module(m, [sym], opt=opt, fastmath=fastmath)
    return pywrap.make_callable(lib, name, fallback), lib


def _f_body(b, ctx, ins, outs):
    a, c = ins
    b.store(b.fdiv(a, b.fadd(a, b.fmul(c, c))), outs[0])
    return OK


@pytest.fixture(scope="module")
def scalar_f():
    f, _lib = build(["f64", "f64"], ["f64"], 0, _f_body, doc="f(a, b) = a / (a + b*b)", name="f")
    return f


def test_scalar_f64(scalar_f):
    f = scalar_f
    assert f(1.0, 2.0) == 1.0 / (1.0 + 4.0)
    for a, c in [(3.5, -0.25), (-1e300, 1e-10), (0.1, 0.7)]:
        assert f(a, c) == a / (a + c * c)
    assert f.__doc__ == "f(a, b) = a / (a + b*b)"
    assert f.__name__ == "f"
    assert isinstance(pywrap.library_of(f), jit.CompiledLibrary)
    assert pywrap.library_of(f) is f.__self__.library
    assert type(f(1.0, 1.0)) is float


def test_library_introspection(scalar_f):
    lib = pywrap.library_of(scalar_f)
    assert lib.object_code[:4] == b"\x7fELF"
    assert "f__def" in lib.llvm_ir and "k_f" in lib.unoptimized_ir
    assert set(lib.exports) == {"f__def"}
    assert lib.address("f__def") != 0
    with pytest.raises(KeyError):
        lib.address("k_f")
    assert "PyFloat_FromDouble" in jit.undefined_symbols(lib.object_code)


def test_no_args_none_result():
    f, _ = build([], [], None, lambda b, ctx, ins, outs: OK, name="noargs")
    before = sys.getrefcount(None)
    results = [f() for _ in range(10000)]
    assert sys.getrefcount(None) - before > 9000  # each returned None is a new reference
    assert results == [None] * 10000
    del results
    assert abs(sys.getrefcount(None) - before) < 1000
    with pytest.raises(TypeError, match=r"noargs\(\) takes 0 arguments \(\), got 1"):
        f(1)


def test_percent_in_python_name():
    m = ir.Module("pct")
    k = make_kernel(m, "k", ["f64"], ["f64"], lambda b, ctx, ins, outs: (b.store(ins[0], outs[0]), OK)[1])
    sym = pywrap.emit_wrapper(m, k, name="pct", params=["f64"], outs=["f64"], result=0, pyname="a%sb")
    f = pywrap.make_callable(jit.compile_module(m, [sym]), "pct")
    assert f.__name__ == "a%sb" and f(2.5) == 2.5
    with pytest.raises(TypeError, match=r"a%sb\(\) takes 1 argument \(float\), got 2"):
        f(1.0, 2.0)
    with pytest.raises(TypeError, match=r"a%sb\(\): argument 1 must be float \(exact type\), not int"):
        f(1)


def test_i64_and_bool():
    def body(b, ctx, ins, outs):
        n, flag = ins
        twice = b.mul(n, ir.Constant(I64, 2))
        b.store(b.select(flag, b.neg(twice), twice), outs[0])
        pos = b.icmp_signed(">", n, ir.Constant(I64, 0))
        b.store(b.zext(b.xor(pos, flag), I8), outs[1])
        return OK

    g, _ = build(["i64", "bool"], ["i64", "bool"], (0, 1), body, name="g")
    assert g(21, False) == (42, True)
    assert g(21, True) == (-42, False)
    assert g(-5, True) == (10, True)
    big = 2 ** 62 - 1
    assert g(big // 2, False)[0] == (big // 2) * 2
    r0, r1 = g(0, False)
    assert type(r0) is int and r1 is False
    # bool is not an int here, and int is not a bool: exact types only.
    with pytest.raises(TypeError, match=r"g\(\): argument 1 must be int \(exact type\), not bool"):
        g(True, False)
    with pytest.raises(TypeError, match=r"argument 2 must be bool \(exact type\)"):
        g(1, 1)
    with pytest.raises(TypeError, match=r"argument 1 does not fit in int64"):
        g(2 ** 70, False)
    with pytest.raises(TypeError, match=r"argument 1 must be int \(exact type\), not float"):
        g(1.0, False)


def test_tuple_and_nested_results():
    def body(b, ctx, ins, outs):
        x, n = ins
        b.store(b.fmul(x, x), outs[0])
        b.store(b.add(n, ir.Constant(I64, 1)), outs[1])
        b.store(ir.Constant(I8, 1), outs[2])
        return OK

    params, outs = ["f64", "i64"], ["f64", "i64", "bool"]
    h, lib = build(params, outs, (0, (1, None, 2)), body, name="h")
    assert h(3.0, 4) == (9.0, (5, None, True))
    for _ in range(100):  # exercise refcounts of the singletons
        h(3.0, 4)
    # more shapes from the same kernel, one module
    m = ir.Module("shapes")
    k = make_kernel(m, "k", params, outs, body)
    specs = {"s_empty": (), "s_one": (2,), "s_none": (None,), "s_deep": ((0, ((1,),)), None, ()),
             "s_scalar_i": 1}
    syms = [pywrap.emit_wrapper(m, k, name=n, params=params, outs=outs, result=s) for n, s in specs.items()]
    lib2 = jit.compile_module(m, syms)
    got = {n: pywrap.make_callable(lib2, n)(2.0, 10) for n in specs}
    assert got == {"s_empty": (), "s_one": (True,), "s_none": (None,),
                   "s_deep": ((4.0, ((11,),)), None, ()), "s_scalar_i": 11}


def _set_error_body(kind, msg, *, via_runtime):
    def body(b, ctx, ins, outs):
        (x,) = ins
        m = b.module
        text = bytearray(msg.encode() + b"\0")
        gv = ir.GlobalVariable(m, ir.ArrayType(I8, len(text)), m.get_unique_name("msg"))
        gv.initializer = ir.Constant(gv.value_type, text)
        gv.global_constant = True
        gv.linkage = "private"
        bad = b.fcmp_ordered("==", x, ir.Constant(F64, 0.0))
        with b.if_then(bad):
            if via_runtime:
                fn = ir.Function(m, ir.FunctionType(I32, [PTR, I32, I32, PTR]), "pyad_set_error")
                st = b.call(fn, [ctx, ir.Constant(I32, kind), ir.Constant(I32, 7), gv])
            else:
                zero = ir.Constant(I32, 0)
                b.store(ir.Constant(I32, kind),
                        b.gep(ctx, [zero, ir.Constant(I32, abi.CTX_ERR_KIND)], source_etype=abi.CTX))
                b.store(gv, b.gep(ctx, [zero, ir.Constant(I32, abi.CTX_ERR_MSG)], source_etype=abi.CTX))
                st = ir.Constant(I32, kind)
            b.ret(st)
        b.store(b.fdiv(ir.Constant(F64, 1.0), x), outs[0])
        return OK
    return body


def test_error_status_raises():
    inv, _ = build(["f64"], ["f64"], 0,
                   _set_error_body(abi.ERR_ZERO_DIVISION, "float division by zero in inv", via_runtime=True),
                   name="inv")
    assert inv(4.0) == 0.25
    with pytest.raises(ZeroDivisionError, match=r"^float division by zero in inv$"):
        inv(0.0)
    assert inv(2.0) == 0.5  # the next call gets a fresh ctx

    idx, _ = build(["f64"], ["f64"], 0, _set_error_body(abi.ERR_INDEX, "index out of range", via_runtime=False),
                   name="idx")
    with pytest.raises(IndexError, match="index out of range"):
        idx(0.0)
    odd, _ = build(["f64"], ["f64"], 0, _set_error_body(99, "weird", via_runtime=False), name="odd")
    with pytest.raises(RuntimeError, match="weird"):
        odd(0.0)
    for name in abi.ERROR_KINDS[1:]:
        assert issubclass(abi.exception_class(name), BaseException)
    lin, _ = build(["f64"], ["f64"], 0, _set_error_body(abi.ERR_LINALG, "Singular matrix",
                                                        via_runtime=False), name="lin")
    with pytest.raises(np.linalg.LinAlgError, match="^Singular matrix$"):
        lin(0.0)


def test_error_without_message_uses_status():
    def body(b, ctx, ins, outs):
        return ir.Constant(I32, abi.ERR_VALUE)  # nothing stored in ctx
    v, _ = build(["f64"], ["f64"], 0, body, name="v")
    with pytest.raises(ValueError, match=r"error in compiled code of v\(\)"):
        v(1.0)


def test_type_errors_without_fallback(scalar_f):
    f = scalar_f
    with pytest.raises(TypeError, match=r"f\(\) takes 2 arguments \(float, float\), got 1"):
        f(1.0)
    with pytest.raises(TypeError, match=r"got 3"):
        f(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match=r"argument 2 must be float \(exact type\), not int"):
        f(1.0, 2)
    with pytest.raises(TypeError, match=r"not str"):
        f("a", 2.0)

    class F(float):
        pass
    with pytest.raises(TypeError, match=r"not F"):
        f(F(1.0), 2.0)
    with pytest.raises(TypeError):
        f(1.0, b=2.0)  # METH_FASTCALL without keywords


def test_fallback_receives_original_args():
    calls = []

    def fallback(*args):
        calls.append(args)
        return ("fallback", args)

    f, lib = build(["f64", "f64"], ["f64"], 0, _f_body, name="fb", fallback=fallback)
    assert f(1.0, 2.0) == 0.2 and calls == []
    s = "x"
    assert f(1, 2.0) == ("fallback", (1, 2.0))
    assert f(1.0) == ("fallback", (1.0,))
    assert f(s, None, 3) == ("fallback", (s, None, 3))
    assert calls[-1][0] is s
    assert len(calls) == 3

    # the fallback belongs to the callable, not to the library: three callables of one
    # wrapper, each with its own
    def raising(*args):
        raise KeyError("from fallback")
    g = pywrap.make_callable(lib, "fb", raising)
    with pytest.raises(KeyError, match="from fallback"):
        g(1)
    h = pywrap.make_callable(lib, "fb", None)
    with pytest.raises(TypeError, match="argument 1 must be float"):
        h(1, 2.0)
    assert f(1, 2.0) == ("fallback", (1, 2.0))  # f's own fallback still
    assert g(1.0, 2.0) == h(1.0, 2.0) == 0.2
    with pytest.raises(TypeError):
        pywrap.make_callable(lib, "fb", 42)


def test_fallback_on_int64_overflow():
    def body(b, ctx, ins, outs):
        b.store(ins[0], outs[0])
        return OK
    ident, _ = build(["i64"], ["i64"], 0, body, name="ident", fallback=lambda n: ("big", n))
    assert ident(-(2 ** 63)) == -(2 ** 63)
    assert ident(2 ** 63) == ("big", 2 ** 63)
    assert ident(-1) == -1  # -1 is not mistaken for an error


def test_ptr_round_trip():
    def body(b, ctx, ins, outs):
        p, k = ins
        q = b.gep(p, [k], source_etype=F64)
        b.store(q, outs[0])
        b.store(b.load(q, typ=F64), outs[1])
        b.store(ir.Constant(F64, -1.0), p)  # write through the pointer
        return OK

    pk, _ = build(["ptr", "i64"], ["ptr", "f64"], (0, 1), body, name="pk")
    buf = (ctypes.c_double * 4)(1.0, 2.0, 3.0, 4.0)
    base = ctypes.addressof(buf)
    q, val = pk(base, 2)
    assert q == base + 16 and val == 3.0 and buf[0] == -1.0
    assert type(q) is int

    def ident(b, ctx, ins, outs):
        b.store(ins[0], outs[0])
        return OK
    pid, _ = build(["ptr"], ["ptr"], 0, ident, name="pid")
    for addr in (0, 1, base, 2 ** 64 - 8):
        assert pid(addr) == addr
    with pytest.raises(TypeError):
        pid(2 ** 64)
    with pytest.raises(TypeError):
        pid(1.0)


def test_code_lifetime():
    f, lib = build(["f64", "f64"], ["f64"], 0, _f_body, name="life")
    ref = weakref.ref(lib)
    gc.collect()  # garbage from earlier tests must not be counted below
    live_before = len(jit._LIVE)
    del lib
    gc.collect()
    assert ref() is not None  # the callable keeps the library (and code) alive
    assert f(1.0, 2.0) == 0.2
    del f
    gc.collect()
    assert ref() is None
    assert len(jit._LIVE) == live_before - 1  # tracker released -> code unloaded


def test_code_lifetime_with_reference_cycle():
    """callable -> library -> fallback -> callable: the GC must free it without touching freed
    code (the code is released only when the library is deallocated)."""
    for _ in range(3):
        holder = {}

        def fallback(*args, holder=holder):
            return holder["f"](float(args[0]), float(args[1]))

        f, lib = build(["f64", "f64"], ["f64"], 0, _f_body, name="cyc", fallback=fallback)
        holder["f"] = f
        assert f(1, 2) == 0.2
        ref = weakref.ref(lib)
        del f, lib, fallback, holder
        assert ref() is not None  # only a cycle holds it now
        gc.collect()
        assert ref() is None


def test_external_not_on_allow_list():
    m = ir.Module("bad_ext")

    def body(b, ctx, ins, outs):
        system = ir.Function(m, ir.FunctionType(I32, [PTR]), "system")
        b.call(system, [ir.Constant(PTR, None)])
        return OK
    k = make_kernel(m, "k", ["f64"], ["f64"], body)
    sym = pywrap.emit_wrapper(m, k, name="w", params=["f64"], outs=["f64"], result=0)
    with pytest.raises(RuntimeError, match=r"'system'.*not on the JIT allow-list"):
        jit.compile_module(m, [sym])
    with pytest.raises(RuntimeError, match="allow-list"):
        jit.resolve_symbol("dlopen")
    with pytest.raises(RuntimeError, match="not found in the CPython C API"):
        jit.resolve_symbol("PyNoSuchFunction_Xyz")


def test_libm_and_intrinsics():
    def body(b, ctx, ins, outs):
        (x,) = ins
        m = b.module
        exp = m.declare_intrinsic("llvm.exp", [F64])
        sin = ir.Function(m, ir.FunctionType(F64, [F64]), "sin")
        pw = m.declare_intrinsic("llvm.pow", [F64])
        b.store(b.fadd(b.call(exp, [x]), b.fadd(b.call(sin, [x]), b.call(pw, [x, x]))), outs[0])
        return OK
    import math
    f, lib = build(["f64"], ["f64"], 0, body, name="mth")
    for x in (0.5, 1.5, 3.0):
        assert f(x) == pytest.approx(math.exp(x) + math.sin(x) + x ** x, rel=1e-14)
    assert {"exp", "sin", "pow"} <= set(jit.undefined_symbols(lib.object_code))


def test_invalid_ir_is_internal_error():
    m = ir.Module("bad_ir")
    fn = ir.Function(m, ir.FunctionType(I32, []), "k")
    fn.append_basic_block("entry")  # no terminator
    with pytest.raises(RuntimeError, match="internal compiler error"):
        jit.compile_module(m, ["k"])
    m2 = ir.Module("no_export")
    with pytest.raises(RuntimeError, match="not defined"):
        jit.compile_module(m2, ["nothing"])


def test_fastmath_and_opt_levels():
    f3, lib = build(["f64", "f64"], ["f64"], 0, _f_body, name="fm", fastmath=True, opt=3)
    assert " fast " in lib.llvm_ir and "fast" not in lib.unoptimized_ir
    assert f3(1.0, 2.0) == pytest.approx(0.2)
    f0, lib0 = build(["f64", "f64"], ["f64"], 0, _f_body, name="o0", opt=0)
    assert f0(1.0, 2.0) == 0.2


def test_many_compiles():
    fs = []
    for i in range(50):
        def body(b, ctx, ins, outs, i=i):
            b.store(b.fadd(ins[0], ir.Constant(F64, float(i))), outs[0])
            return OK
        f, _ = build(["f64"], ["f64"], 0, body, name=f"many{i}")
        fs.append(f)
        if i % 2:
            del fs[0]  # drop some while compiling more
    assert [f(0.5) for f in fs] == [0.5 + i for i in range(25, 50)]


def test_threads_compile_concurrently():
    results = []

    def work(t):
        for i in range(5):
            def body(b, ctx, ins, outs, c=float(10 * t + i)):
                b.store(b.fmul(ins[0], ir.Constant(F64, c)), outs[0])
                return OK
            f, _ = build(["f64"], ["f64"], 0, body, name=f"t{t}_{i}")
            results.append(f(2.0) == 2.0 * (10 * t + i))
    run_together(work, 2)
    assert len(results) == 10 and all(results)


def test_emit_object_for_aot():
    m = ir.Module("aot")
    k = make_kernel(m, "k", ["f64", "f64"], ["f64"], _f_body)
    k.linkage = "external"
    obj = jit.emit_object(m, cpu="x86-64-v2") if sys.platform.startswith("linux") else b""
    if obj:
        assert obj[:4] == b"\x7fELF"
        assert jit.undefined_symbols(obj) == []


def test_emit_wrapper_validates_arguments():
    m = ir.Module("val")
    k = make_kernel(m, "k", ["f64"], ["f64"], lambda b, c, i, o: OK)
    with pytest.raises(ValueError, match="unknown input kind"):
        pywrap.emit_wrapper(m, k, name="a", params=["f32"], outs=["f64"], result=0)
    with pytest.raises(ValueError, match="refers to output 1"):
        pywrap.emit_wrapper(m, k, name="a", params=["f64"], outs=["f64"], result=1)
    with pytest.raises(ValueError, match="has type"):
        pywrap.emit_wrapper(m, k, name="a", params=["i64"], outs=["f64"], result=0)
    pywrap.emit_wrapper(m, k, name="a", params=["f64"], outs=["f64"], result=0)
    with pytest.raises(ValueError, match="already exists"):
        pywrap.emit_wrapper(m, k, name="a", params=["f64"], outs=["f64"], result=0)


def test_import_in_fresh_process_has_no_side_effects():
    # importing the modules must not create the JIT or load the runtime
    code = ("import pyad.codegen.jit as j, pyad.codegen.python.wrap as p; "
            "assert j._lljit is None and j._runtime_dll is None; print(p.LAYOUT)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "'ob_fval': 16" in r.stdout


def _bench(n: int = 1_000_000) -> None:  # pragma: no cover -- `python tests/codegen/test_codegen_wrap.py`
    import time
    import timeit

    def g(a, b):
        return a / (a + b * b)

    t0 = time.perf_counter()
    f, _ = build(["f64", "f64"], ["f64"], 0, _f_body, name="bench0")
    first = time.perf_counter() - t0
    times = []
    for i in range(20):
        t0 = time.perf_counter()
        build(["f64", "f64"], ["f64"], 0, _f_body, name=f"bench{i + 1}")
        times.append(time.perf_counter() - t0)
    times.sort()
    print(f"compile (IR build + optimize + codegen + link): first {first * 1e3:.1f} ms, "
          f"median {times[len(times) // 2] * 1e3:.2f} ms")
    for label, fn, args in (("jit f(1.5, 2.5)", f, (1.5, 2.5)), ("python f(1.5, 2.5)", g, (1.5, 2.5)),
                            ("jit f(1, 2) -> TypeError", None, None)):
        if fn is None:
            def bad():
                try:
                    f(1, 2.5)
                except TypeError:
                    pass
            best = min(timeit.repeat(bad, number=n // 10, repeat=5)) / (n // 10)
        else:
            best = min(timeit.repeat(f"fn{args!r}", globals={"fn": fn}, number=n, repeat=5)) / n
        print(f"{label:28s} {best * 1e9:7.1f} ns/call")


if __name__ == "__main__":  # pragma: no cover
    _bench()


def test_the_error_kinds_agree_in_abi_the_header_and_the_cffi_declarations():
    """codegen/abi.py ERROR_KINDS (index = kind), runtime/pyad_rt.h and pyad/_runtime.py's
    CDEF list the same kinds with the same numbers (the user's raise/assert added 9-15)."""
    import re
    from pathlib import Path

    from pyad import _runtime
    enum = re.compile(r"(PYAD_\w+) = (\d+)")
    header = (Path(_runtime.__file__).parent.parent / "runtime" / "pyad_rt.h")
    if not header.exists():
        header = _runtime.header_path()
    in_header = enum.findall(header.read_text().split("enum pyad_error_kind", 1)[1]
                             .split("};", 1)[0])
    in_cdef = enum.findall(_runtime.CDEF.split("enum pyad_error_kind", 1)[1].split("};", 1)[0])
    assert in_header == in_cdef
    assert [int(v) for _, v in in_header] == list(range(len(abi.ERROR_KINDS)))
    assert [n for n, _ in in_header][abi.ERR_ASSERTION] == "PYAD_ERR_ASSERTION"


def test_entries_share_one_body_and_build_their_own_results():
    """emit_wrappers with two entries: one `__impl` body, each entry its own result; a
    kernel status StrongZeros calls the retry with the arguments, or raises RuntimeError
    without one."""
    m = ir.Module("test_shared")
    params, outs = ["f64", "f64"], ["f64", "f64"]

    def body(b, ctx, ins, outs_):
        a, c = ins
        bad = b.fcmp_ordered("==", a, ir.Constant(F64, 0.0))
        with b.if_then(bad):
            b.ret(ir.Constant(I32, abi.ERR_STRONG_ZEROS))
        b.store(b.fmul(a, c), outs_[0])
        b.store(b.fadd(a, c), outs_[1])
        return OK
    k = make_kernel(m, "k_shared", params, outs, body)
    syms = pywrap.emit_wrappers(m, k, [("both", (0, 1), "both"), ("second", 1, "")],
                                params=params, outs=outs, retry=True)
    assert syms == ["both__def", "second__def"]
    lib = jit.compile_module(m, syms)
    assert "both__impl" in lib.llvm_ir
    calls = []

    def retry(*args):
        calls.append(args)
        return "retried"
    both = pywrap.make_callable(lib, "both", retry=retry)
    second = pywrap.make_callable(lib, "second")
    assert both(2.0, 3.0) == (6.0, 5.0) and second(2.0, 3.0) == 5.0
    assert both.__name__ == "both" and second.__name__ == "second"
    assert both.__doc__ == "both" and second.__doc__ is None
    assert both(0.0, 3.0) == "retried" and calls == [(0.0, 3.0)]
    with pytest.raises(RuntimeError, match="no kernel with strong zeros"):
        second(0.0, 3.0)
    with pytest.raises(TypeError):
        second(1.0)


def test_the_allocation_kinds_agree_in_abi_and_the_header():
    """codegen/abi.py ALLOC_* are runtime/pyad_rt.h's enum pyad_alloc_kind."""
    import re
    from pathlib import Path

    from pyad import _runtime
    header = (Path(_runtime.__file__).parent.parent / "runtime" / "pyad_rt.h")
    if not header.exists():
        header = _runtime.header_path()
    kinds = dict(re.findall(r"PYAD_ALLOC_(\w+) = (\d+)", header.read_text()))
    assert {k: int(v) for k, v in kinds.items()} == {
        "ZEROED": abi.ALLOC_ZEROED, "SHADOW": abi.ALLOC_SHADOW, "WRITTEN": abi.ALLOC_WRITTEN}
