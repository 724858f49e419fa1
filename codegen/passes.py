"""Which LLVM passes run on a compiled module: the default O2 module pipeline of LLVM with
the loop vectorizer, SLP, interleaving and unrolling, on every unit (primal, gradient,
pullback; JIT and AOT alike). The code generator (instruction selection, register
allocation) runs at the same level (jit.py, `_target_machine(opt)`).

Why nothing cheaper (measured on llvmlite 0.50 / LLVM 22, 2 shared cores, issue 19 item 3;
bench/w1..w5 in loop and NumPy spellings at full size, primal and value+gradient, medians of
7-9 interleaved runs in one process against this pipeline; compile time on the 30 bench
modules and 150 modules of tests/corpus_*.py replayed through each pipeline):

- Every knob of the O2 pipeline pays somewhere. O1: W2 loop value+grad 1.20x run time, W3
  value+grad 1.10x. Unrolling off (-21% compile time): W2 array value+grad 1.30x. SLP off:
  W2 array primal 1.53x. Interleaving off: W2 loop value+grad 1.10x.
- Code generator level 1 instead of 2: -10% machine-code time, but W1 value+grad and W5 loop
  value+grad 1.02-1.03x in two runs (W4 loop primal 0.97x). Level 0: 2-6x slower code.
- Modules without loops (straight-line kernels and their wrappers) cost 15-40 ms against
  70-320 ms for modules with loops. A hand-made pipeline for them (always-inline, SROA,
  InstCombine, SimplifyCFG, NewGVN, DCE) optimizes 3x faster but leaves the wrappers' call
  context in memory (no classic GVN in llvmlite's pass list): 1-2% more time per call. The
  function-simplification pipeline per function after always-inlining gives the same code
  and run time, saves 12-18% of those units' compile time, but needs a fresh pass builder per
  function (one must never be run twice): memory kept per compiled function grew from 204 to
  295 KiB (llvmlite leaks per pass builder), the wrong way for issue 19 item 5.

Every pass builder and pass manager is fresh: a module pass manager must never run twice
(LLVM aborts), and a pass builder keeps the instrumentation callbacks of every run.
"""
from __future__ import annotations

import llvmlite.binding as llvm

__all__ = ["optimize"]


def optimize(mod: llvm.ModuleRef, tm: llvm.TargetMachine, opt: int) -> None:
    """Run LLVM's default module pipeline of level `opt` (0..3) on `mod` for target `tm`."""
    pto = llvm.create_pipeline_tuning_options(speed_level=opt)
    pto.loop_vectorization = opt > 0
    pto.slp_vectorization = opt > 0
    pto.loop_interleaving = opt > 0
    pto.loop_unrolling = opt > 0
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
