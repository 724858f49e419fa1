"""pyad: a source-to-source reverse-mode AD compiler for numerical Python.

    @pyad.jit_grad
    def f(a, b):
        return a / (a + b * b)

    f(2.0, 3.0); f.grad(2.0, 3.0); f.value_and_grad(2.0, 3.0); y, back = f.pullback(2.0, 3.0)
"""
from .api import cache  # `pyad.cache.stats()`, `pyad.cache.PyadCacheWarning` (docs/processes.md)
from .api.cache import cache_dir, clear_cache
from .api.check import check_grad
from .api.jit import JitGrad, jit_grad
from .api.pullback import Pullback
from .api.transforms import grad, value_and_grad, vjp
from .api.vmap import vmap
from .errors import PyadError, PyadInternalError, PyadSyntaxError, PyadTypeError
from .custom import CustomVJP, custom_vjp, stop_gradient
from .pytree import tree_flatten, tree_leaves, tree_structure, tree_unflatten
from .pytree import user_tree_map as tree_map

__all__ = ["jit_grad", "JitGrad", "Pullback", "check_grad", "grad", "value_and_grad", "vjp", "vmap",
           "custom_vjp", "CustomVJP", "stop_gradient", "cache", "cache_dir", "clear_cache",
           "tree_map", "tree_leaves", "tree_structure", "tree_flatten", "tree_unflatten",
           "PyadError", "PyadSyntaxError", "PyadTypeError", "PyadInternalError"]
