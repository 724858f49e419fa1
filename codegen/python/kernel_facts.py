"""What a wrapper needs to know about its kernel's LLVM function before calling it: whether
it (or a function it calls) uses the CPython C API (then the GIL must be kept) or contains a
loop (then releasing the GIL around the call pays off)."""
from __future__ import annotations

from llvmlite import ir

__all__ = ["uses_python_api", "has_loop"]


def uses_python_api(fn: ir.Function, _seen: set | None = None) -> bool:
    """Whether `fn` or a function it calls that is defined in the module references a CPython
    C-API symbol (Py* / _Py*), i.e. needs the GIL."""
    seen = set() if _seen is None else _seen
    if fn.name in seen:
        return False
    seen.add(fn.name)
    for blk in fn.blocks:
        for ins in blk.instructions:
            for op in [getattr(ins, "callee", None), *getattr(ins, "operands", ())]:
                if not isinstance(op, (ir.Function, ir.GlobalVariable)):
                    continue
                if op.name.startswith(("Py", "_Py")):
                    return True
                if isinstance(op, ir.Function) and op.blocks and uses_python_api(op, seen):
                    return True
    return False


def has_loop(fn: ir.Function, _seen: set | None = None) -> bool:
    """Whether `fn` or a function it calls that is defined in the module contains a loop (a
    cycle in its control-flow graph) or recursion: a kernel that may run long enough for a GIL
    release to pay off."""
    seen = set() if _seen is None else _seen
    if fn.name in seen:
        return True  # recursion
    seen.add(fn.name)
    state: dict = {}  # block -> 1 (on the DFS stack) / 2 (done)

    def successors(blk):
        term = blk.terminator
        if isinstance(term, ir.SwitchInstr):
            return [term.default] + [b for _v, b in term.cases]
        return [op for op in getattr(term, "operands", ()) if isinstance(op, ir.Block)]

    if fn.blocks:  # iterative DFS: a back edge to a block on the stack is a cycle
        stack = [(fn.blocks[0], iter(successors(fn.blocks[0])))]
        state[fn.blocks[0]] = 1
        while stack:
            blk, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[blk] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return True
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(successors(nxt))))
    for blk in fn.blocks:
        for ins in blk.instructions:
            callee = getattr(ins, "callee", None)
            if isinstance(callee, ir.Function) and callee.blocks and has_loop(callee, seen):
                return True
    seen.discard(fn.name)
    return False
