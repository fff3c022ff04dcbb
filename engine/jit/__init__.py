"""The ground under the floors: how kernels are compiled, cached and called.

- :mod:`engine.jit.njit`: the house decorator (``kernel``, ``parallel_kernel``) and the
  compile cache keyed by the kernel sources;
- :mod:`engine.jit.late`: calls through a table of machine-code addresses, bound when a
  run needs the callee;
- :mod:`engine.jit.warmup`: the notice and progress bar of a first compile;
- :mod:`engine.jit.cache`: the cache folder and the owner-only file checks.
"""
