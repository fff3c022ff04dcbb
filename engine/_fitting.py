"""What both families' strong-model fits share: the danger regression and the progress bar."""

from __future__ import annotations

import numpy as np

__all__ = ["L2", "fit_logistic", "collect_with_bar"]

L2 = 1.0
"""L2 penalty of the danger regressions (on the sum of log-likelihoods)."""


def fit_logistic(x, label: np.ndarray) -> np.ndarray:
    """Weights of an L2-penalised (:data:`L2`) logistic regression of ``label`` on
    sparse ``x`` (L-BFGS from zero: the problem is convex).
    """
    from scipy import optimize

    y = label.astype(np.float64)
    xt = x.T.tocsr()

    def f(w):
        z = x @ w
        # log(1 + e^z) - y z, stably
        ll = np.logaddexp(0.0, z) - y * z
        p = 0.5 * (1.0 + np.tanh(0.5 * z))
        return ll.sum() + 0.5 * L2 * (w @ w), xt @ (p - y) + L2 * w

    w0 = np.zeros(x.shape[1])
    res = optimize.minimize(f, w0, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return res.x


def collect_with_bar(play, v, resolved, deals, seed, policies, threads, progress):
    """``play(v, resolved, deals, seed, policies, threads=, on_block=)`` (a family's
    ``collect``) with a progress bar over its deals when ``progress``.
    """
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=deals, unit="deal", unit_scale=True, desc=f"fit {v.name}")
    try:
        return play(v, resolved, deals, seed, policies, threads=threads,
                    on_block=(bar.update if bar is not None else None))  # fmt: skip
    finally:
        if bar is not None:
            bar.close()
