"""Which LLVM passes run on a compiled module (JIT and AOT alike).

A module with a loop (a cycle in some function's control-flow graph, or recursion) gets
LLVM's default O2 module pipeline with the loop vectorizer, SLP, interleaving and unrolling.
A module without one (straight-line kernels and their CPython wrappers: most scalar
functions) gets LOOP_FREE_PASSES: its internal functions (the kernels) are inlined into
their callers, as the default pipeline's inliner does with these small kernels, then SROA,
InstCombine, SimplifyCFG, NewGVN, again SROA, InstCombine and SimplifyCFG (what NewGVN
exposes), DCE, tail-call marking (the wrapper's last call becomes a jump, as before),
function attributes and global DCE. The code generator runs at the same level for both
(jit.py, `_target_machine(opt)`). The rule reads one property of the module, nothing else.

Measured (llvmlite 0.50 / LLVM 22, 2 shared cores, issue 19 item 3; run times are medians of
interleaved runs in one process; scripts and commands in the commit message):

- Loop-free units of tests/corpus_*.py (116 functions, both pipelines interleaved): LLVM
  optimization 0.42-0.55x (primal 11.7 -> 5.9 ms, gradient 22.3 -> 12.4, pullback 28.3 ->
  11.8), machine code 0.97-1.08x, the whole unit 0.81-0.87x. Time per call of their primal
  and value-and-gradient: median ratio 1.00 (58 functions; single functions vary by code
  placement, both ways, up to 11 ns). Memory kept per compiled-and-dropped loop-free
  function (primal and gradient; 300 in a fresh process): 56 instead of 204 KiB (one pass
  builder and a short pass manager leak less than the default pipeline: issue 19 item 5).
  The short pipeline needs the runtime's `pyad_ctx_release` declared ``captures(none)``
  (python/wrap.py): without it NewGVN cannot forward the wrapper's call context fields
  past the calls in between, and calls got 1-2% slower.
- The per-function simplification pipeline (pb.getFunctionPassManager()) after inlining
  gives the same code as the default one but needs a fresh pass builder per function (none
  may run twice): 295 KiB kept per function. Not used.
- Modules with loops: every knob of the O2 pipeline pays somewhere on the bench workloads
  (bench/w1..w5, loop and NumPy spellings, full size, primal and value+gradient, 7-9 runs):
  O1 costs up to 1.20x run time (W2 loop value+grad; W3 value+grad 1.10x), unrolling off
  (-21% compile time) 1.30x (W2 array value+grad), SLP off 1.53x (W2 array primal),
  interleaving off 1.10x (W2 loop value+grad). Code generator level 1 instead of 2: -10%
  machine-code time but W1 value+grad and W5 loop value+grad 1.02-1.03x in two runs. Level
  0: 2-6x slower code. So they keep the default pipeline and level 2.

LLVM runs with its default command-line options. `-force-ordered-reductions` (which lets the
loop vectorizer compute the terms of a strict float running sum, `s += math.exp(x[i])`, in
vector lanes and add them in order: 11.3 -> 4.3 ns per element for exp, measured in issue
18) was set here until a random-program probe found LLVM 22 miscompiling with it: in a loop
that reads an element, adds it to a running sum and then stores into the same element (`s
+= v[i]; v[i] = 0.0`, which is also what the reverse sweep does with a shadow it reads and
clears), the vectorized loop, tail-folded when the trip count is small, stored before it
loaded. Wrong values and gradients, no error (tests/codegen/test_running_sums.py). Strict
running sums are scalar loops again; the bits never depended on the option. Its price,
measured A/B (bench workloads, full size, value and gradient, best of two processes each):
W1 1.60x (loop spelling) and 1.49x (array spelling), W4 array spelling 1.30x, the others
0.99-1.02x. LLVM options tried to keep it safely (`-prefer-predicate-over-epilogue=scalar-
epilogue`, `-vectorizer-min-trip-count`, `-vectorize-num-stores-pred=0`) did not remove the
miscompile.

Every pass builder and pass manager is fresh: a module pass manager must never run twice
(LLVM aborts), and a pass builder keeps the instrumentation callbacks of every run.
"""
from __future__ import annotations

import llvmlite.binding as llvm
from llvmlite import ir

from .python.kernel_facts import has_loop

__all__ = ["LOOP_FREE_PASSES", "module_has_loop", "optimize"]

#: the pipeline of a module without loops (llvmlite's ``add_<name>_pass`` methods, in order)
LOOP_FREE_PASSES = ("always_inliner", "sroa", "instruction_combine", "simplify_cfg", "new_gvn",
                    "sroa", "instruction_combine", "simplify_cfg", "dead_code_elimination",
                    "tail_call_elimination", "post_order_function_attributes",
                    "global_dead_code_eliminate")


def module_has_loop(module: ir.Module) -> bool:
    """Whether a function of `module` contains a loop or recursion (kernel_facts.has_loop on
    the llvmlite.ir objects; walking a parsed module through the binding costs about 15 us
    per instruction)."""
    return any(has_loop(fn) for fn in module.functions if fn.blocks)


def optimize(mod: llvm.ModuleRef, tm: llvm.TargetMachine, opt: int, *, loops: bool) -> None:
    """Optimize `mod` for target `tm` at level `opt` (0..3): LLVM's default module pipeline
    if the module has a loop (`loops`, :func:`module_has_loop`) or `opt` is 0, else
    LOOP_FREE_PASSES after marking its internal functions ``alwaysinline``."""
    pto = llvm.create_pipeline_tuning_options(speed_level=opt)
    if loops or opt == 0:
        pto.loop_vectorization = opt > 0
        pto.slp_vectorization = opt > 0
        pto.loop_interleaving = opt > 0
        pto.loop_unrolling = opt > 0
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
        return
    _inline_internal_functions(mod)
    mpm = llvm.create_new_module_pass_manager()
    for name in LOOP_FREE_PASSES:
        getattr(mpm, f"add_{name}_pass")()
    mpm.run(mod, llvm.create_pass_builder(tm, pto))


def _inline_internal_functions(mod: llvm.ModuleRef) -> None:
    """Mark every internal function of `mod` without ``noinline`` ``alwaysinline``: in a
    loop-free module, a kernel called by its wrappers, which the default pipeline inlines
    too (its inliner is not in llvmlite's list of passes)."""
    for fn in mod.functions:
        if fn.is_declaration or fn.linkage not in (llvm.Linkage.internal, llvm.Linkage.private):
            continue
        if b"noinline" not in set(fn.attributes):
            fn.add_function_attribute("alwaysinline")
