import math

import numpy as np
import pytest
from scipy import stats as st

from analysis import stats
from analysis.payouts import gini


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (30, 100), (1, 100000)])
def test_wilson_matches_scipy(k, n):
    lo, hi = stats.wilson(k, n)
    ref = st.binomtest(k, n).proportion_ci(0.95, method="wilson")
    assert lo == pytest.approx(ref.low, abs=1e-12)
    assert hi == pytest.approx(ref.high, abs=1e-12)


def test_wilson_vectorised_and_empty():
    lo, hi = stats.wilson(np.array([1, 2]), np.array([10, 0]))
    assert lo[0] == pytest.approx(st.binomtest(1, 10).proportion_ci(method="wilson").low)
    assert math.isnan(lo[1]) and math.isnan(hi[1])


def test_mean_ci_matches_scipy(rng):
    x = rng.normal(3, 2, size=57)
    r = stats.mean_ci(x)
    ci = st.ttest_1samp(x, 0).confidence_interval(0.95)
    assert r["lo"] == pytest.approx(ci.low) and r["hi"] == pytest.approx(ci.high)
    assert r["se"] == pytest.approx(st.sem(x))
    xi = rng.integers(-50, 50, size=57)
    s = stats.mean_ci_from_sums(57, int(xi.sum()), int((xi * xi).sum()))
    assert s["sd"] == pytest.approx(xi.std(ddof=1), rel=1e-12)
    nz = stats.mean_ci(x, dist="normal")
    assert nz["hi"] - nz["mean"] == pytest.approx(1.959963984540054 * nz["se"])


def test_diff_means_match_scipy(rng):
    x = rng.normal(0, 1, 40)
    y = rng.normal(0.5, 3, 70)
    r = stats.diff_means(x, y)
    ref = st.ttest_ind(x, y, equal_var=False)
    ci = ref.confidence_interval()
    assert r["p"] == pytest.approx(ref.pvalue) and r["t"] == pytest.approx(ref.statistic)
    assert (r["lo"], r["hi"]) == pytest.approx((ci.low, ci.high))
    y2 = x + rng.normal(0.2, 0.3, 40)
    rp = stats.diff_means(x, y2, paired=True)
    refp = st.ttest_rel(x, y2)
    cip = refp.confidence_interval()
    assert rp["p"] == pytest.approx(refp.pvalue)
    assert (rp["lo"], rp["hi"]) == pytest.approx((cip.low, cip.high))
    with pytest.raises(ValueError):
        stats.diff_means(x, y, paired=True)


def test_anova_wrappers_match_scipy(rng):
    groups = [rng.normal(m, s, n) for m, s, n in ((0, 1, 30), (0.3, 2, 45), (0.1, 0.5, 25))]
    n = [g.size for g in groups]
    mean = [g.mean() for g in groups]
    var = [g.var(ddof=1) for g in groups]
    a = stats.oneway_anova(n, mean, var)
    ref = st.f_oneway(*groups)
    assert a["statistic"] == pytest.approx(ref.statistic) and a["p"] == pytest.approx(ref.pvalue)
    w = stats.welch_anova(n, mean, var)
    refw = st.f_oneway(*groups, equal_var=False)
    assert w["statistic"] == pytest.approx(refw.statistic)
    assert w["p"] == pytest.approx(refw.pvalue)


def test_chi2_wrappers_match_scipy():
    c = [30, 25, 22, 23]
    assert stats.chi2_uniform(c)["p"] == pytest.approx(st.chisquare(c).pvalue)
    t = [[10, 20], [30, 15]]
    ref = st.chi2_contingency(t, correction=False)
    r = stats.chi2_independence(t)
    assert r["statistic"] == pytest.approx(ref.statistic) and r["df"] == 1


def test_hotelling_closed_form(rng):
    x = rng.normal([0.1, -0.2, 0.0], 1.0, size=(200, 3))
    m, c = x.mean(axis=0), np.cov(x, rowvar=False)
    r = stats.hotelling_zero_mean(200, m, c)
    t2 = 200 * m @ np.linalg.inv(c) @ m
    f = (200 - 3) / (3 * 199) * t2
    assert r["t2"] == pytest.approx(t2) and r["statistic"] == pytest.approx(f)
    assert r["p"] == pytest.approx(st.f.sf(f, 3, 197))
    # one dimension: the square of the one-sample t test
    r1 = stats.hotelling_zero_mean(200, m[:1], c[:1, :1])
    assert r1["p"] == pytest.approx(st.ttest_1samp(x[:, 0], 0).pvalue)
    assert stats.hotelling_power(0.0, 3, 200, 0.05) == pytest.approx(0.05)


def test_adjust_pvalues():
    p = [0.01, 0.04, 0.03, 0.005]
    holm = stats.adjust_pvalues(p, "holm")
    assert holm.tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.adjust_pvalues(p, "bonferroni").tolist() == pytest.approx([0.04, 0.16, 0.12, 0.02])
    r = stats.adjust_pvalues([0.5, float("nan")], "holm")
    assert r[0] == 0.5 and math.isnan(r[1])
    with pytest.raises(ValueError):
        stats.adjust_pvalues(p, "by")


def test_formatting():
    assert stats.format_pm(0.31234, 0.01987) == "0.312 ± 0.020"
    assert stats.format_pm(12.3, 4.56) == "12.3 ± 4.6"
    assert stats.format_p(1e-12) == "p < 1e-09"
    assert stats.format_p(0.5) == "p = 0.5"


def test_batch_interval_known():
    r = stats.batch_interval([1.0, 2.0, 3.0, 4.0], 2.5)
    assert r["se"] == pytest.approx(np.std([1, 2, 3, 4], ddof=1) / 2)
    assert r["hi"] - r["estimate"] == pytest.approx(st.t.ppf(0.975, 3) * r["se"])


def test_gini_brute_force(rng):
    x = rng.normal(0, 5, 101)
    brute = np.abs(x[:, None] - x[None, :]).mean() / (2 * np.abs(x).mean())
    assert gini(x) == pytest.approx(brute)
    y = rng.exponential(1, 200)
    classic = np.abs(y[:, None] - y[None, :]).sum() / (2 * y.size**2 * y.mean())
    assert gini(y) == pytest.approx(classic)


def test_ratio_ci_is_the_linearised_cluster_ratio():
    import math

    import numpy as np
    from scipy import stats as st

    from analysis.stats import ratio_ci, ratio_influence

    y = np.array([3.0, -1.0, 4.0, 1.0, -5.0])
    x = np.array([16.0, 16.0, 12.0, 16.0, 8.0])
    r = y.sum() / x.sum()
    u = y - r * x
    se = math.sqrt((u**2).sum() / (5 * 4)) / x.mean()
    q = st.t.ppf(0.975, 4)
    got = ratio_ci(y, x)
    assert got["estimate"] == r and math.isclose(got["se"], se)
    assert math.isclose(got["hi"] - got["estimate"], q * se)
    assert math.isclose(ratio_influence(y, x)[1].sum(), 0.0, abs_tol=1e-12)
    one = ratio_ci(y[:1], x[:1])
    assert one["estimate"] == y[0] / x[0] and math.isnan(one["se"]) and math.isnan(one["lo"])
    assert math.isnan(ratio_ci(y, np.zeros(5))["estimate"])


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh", "none"])
def test_adjusted_intervals_exclude_0_exactly_when_the_adjusted_p_rejects(method):
    """Issue 45: an interval printed beside an adjusted p agrees with it (normal tests)."""
    from scipy import stats as st

    from analysis.stats import adjust_pvalues, adjusted_levels, interval_at

    rng = np.random.default_rng(7)
    for _ in range(200):
        m = int(rng.integers(1, 40))
        est = rng.normal(0, 1, m) * rng.choice([0.0, 1.0, 4.0], m)
        se = rng.uniform(0.2, 2.0, m)
        p = 2 * st.norm.sf(np.abs(est / se))
        adj = adjust_pvalues(p, method)
        levels = adjusted_levels(p, method)
        for e, s, a, lv in zip(est, se, adj, levels, strict=True):
            lo, hi = interval_at({"diff": e, "diff_se": s}, lv)
            assert (lo > 0 or hi < 0) == (a < 0.05), (method, e, s, a, lv)


def test_bh_adjustment_matches_its_definition():
    from analysis.stats import adjust_pvalues

    rng = np.random.default_rng(3)
    p = rng.uniform(0, 0.2, 30)
    m = p.size
    order = np.argsort(p)
    want = np.empty(m)
    for rank, i in enumerate(order, start=1):
        want[i] = min(min(p[order[j - 1]] * m / j for j in range(rank, m + 1)), 1.0)
    np.testing.assert_allclose(adjust_pvalues(p, "bh"), want)


def test_newcombe_interval_and_its_p_agree():
    from analysis.stats import newcombe_diff, newcombe_p

    for k1, n1, k0, n0 in [(0, 3200, 0, 3200), (3, 3200, 0, 3200), (10, 1000, 2, 1000),
                           (40, 1000, 60, 1000), (0, 50, 5, 50)]:  # fmt: skip
        lo, hi = newcombe_diff(k1, n1, k0, n0)
        assert lo <= k1 / n1 - k0 / n0 <= hi and hi > lo
        p = newcombe_p(k1, n1, k0, n0)
        assert (lo > 0 or hi < 0) == (p < 0.05)
        for level in (0.9, 0.99, 0.999):
            lo, hi = newcombe_diff(k1, n1, k0, n0, level)
            assert (lo > 0 or hi < 0) == (p < 1 - level)
