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


def collect_with_bar(play, v, resolved, deals, seed, policies, threads, progress, what=""):
    """``play(v, resolved, deals, seed, policies, threads=, on_block=)`` (a family's
    ``collect``) with a progress bar over its deals when ``progress`` (named ``fit
    <variant>``, then ``what`` when given).
    """
    bar = None
    if progress:
        from tqdm.auto import tqdm

        desc = f"fit {v.name}" + (f" ({what})" if what else "")
        bar = tqdm(total=deals, unit="deal", unit_scale=True, desc=desc)
    try:
        return play(v, resolved, deals, seed, policies, threads=threads,
                    on_block=(bar.update if bar is not None else None))  # fmt: skip
    finally:
        if bar is not None:
            bar.close()


def feature_logistic(rows, label, nf_col: int, f_col: int, max_f: int, n_features: int):
    """:func:`fit_logistic` of ``label`` on the active features of observation rows:
    row ``i`` has ``rows[i, nf_col]`` feature indices from column ``f_col`` on (at most
    ``max_f``), each of value 1, out of ``n_features``.
    """
    from scipy import sparse

    n = rows.shape[0]
    nf = rows[:, nf_col]
    cols = rows[:, f_col : f_col + max_f]
    mask = np.arange(max_f)[None, :] < nf[:, None]
    at = np.repeat(np.arange(n), max_f).reshape(n, max_f)[mask]
    x = sparse.csr_matrix(
        (np.ones(at.size), (at, cols[mask])), shape=(n, n_features), dtype=np.float64
    )
    return fit_logistic(x, label)
