#!/usr/bin/python3
# Reference values for the lab's known-answer tests (test/lab/*-known-answers.test.ts), computed by
# implementations other than the code under test — Debian's scikit-learn, SciPy and statsmodels,
# and Python's hashlib — and committed as fixtures:
#   test/fixtures/stats/reference.json  Wilson (statsmodels), Newcombe (statsmodels), Cohen's kappa
#                                       and quadratic-weighted kappa with their 95 % intervals
#                                       (statsmodels cohens_kappa; sklearn cohen_kappa_score checks
#                                       the point values), McNemar's exact test (statsmodels), the
#                                       paired interval (Newcombe's method 10 for paired data, from
#                                       the paper's formula over statsmodels' Wilson intervals), and
#                                       the audit sample (hashlib).
#   test/fixtures/fit/reference.json    Platt and temperature fits (sklearn LogisticRegression on
#                                       the smoothed targets, checked by SciPy's optimiser), the
#                                       isotonic fit (sklearn IsotonicRegression), ECE over the six
#                                       bands (numpy) and Brier (sklearn brier_score_loss).
# It runs only when the cases change, never in CI (docs/testing.md):
#   apt-get install -y python3-sklearn python3-scipy python3-statsmodels
#   /usr/bin/python3 scripts/reference-stats.py
# test/fixtures/calibrate/make-reference.py writes the cross-validation fixture the same way.
import hashlib
import json
import os
import warnings

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
Z95 = 1.959963984540054  # scipy.stats.norm.ppf(0.975)


def write(path, value):
    with open(os.path.join(ROOT, path), "w") as f:
        f.write(json.dumps(value, indent=1) + "\n")


# ---------------------------------------------------------------- stats
wilson_cases = [(81, 263), (0, 10), (10, 10), (1, 1), (0, 1), (15, 148), (1, 29), (3, 7), (50, 100)]
newcombe_cases = [(56, 70, 48, 80), (9, 10, 3, 10), (6, 7, 2, 7), (5, 56, 0, 29), (0, 10, 0, 20), (0, 10, 0, 10), (10, 10, 0, 20), (10, 10, 0, 10), (3, 40, 12, 40)]
# Square count matrices, rows the host's label, columns the model's.
kappa_cases = [
    [[10, 2], [3, 15]],
    [[5, 1, 0], [2, 7, 1], [0, 3, 9]],
    [[4, 0, 0, 1], [1, 6, 2, 0], [0, 1, 8, 2], [2, 0, 1, 5]],
    [[0, 6], [4, 0]],
    [[3, 0, 0], [0, 0, 0], [0, 0, 2]],
    [[1, 2, 3], [4, 5, 6], [7, 8, 9]],
    [[40, 9], [6, 45]],
    [[20, 1], [0, 0]],
    [[5, 0], [0, 0]],
    [[88, 10, 2], [14, 40, 6], [5, 6, 29]],
]
# McNemar: b = pairs only A agreed on, c = only B.
mcnemar_cases = [(12, 30), (0, 0), (0, 1), (0, 5), (5, 0), (3, 10), (10, 10), (1, 12), (6, 0), (25, 40), (100, 130), (600, 700), (2, 9)]
# Paired tables [[both agree, only A], [only B, neither]].
paired_cases = [[[12, 9], [2, 21]], [[40, 5], [5, 10]], [[0, 0], [0, 10]], [[10, 0], [0, 0]], [[30, 0], [6, 4]], [[5, 3], [1, 0]], [[200, 12], [30, 58]], [[1, 0], [0, 0]], [[0, 3], [0, 0]]]


def expand(counts):
    a, b = [], []
    for i, row in enumerate(counts):
        for j, c in enumerate(row):
            a += [i] * c
            b += [j] * c
    return a, b


def kappa_entry(counts, wt):
    table = np.array(counts, float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its z-value divides by zero on the degenerate tables
        r = cohens_kappa(table, wt=wt, return_results=True) if wt else cohens_kappa(table, return_results=True)
    a, b = expand(counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = cohen_kappa_score(a, b, weights=wt, labels=list(range(len(counts))))
    kappa = float(r.kappa)
    if not np.isfinite(kappa):
        return {"counts": counts, "kappa": None, "se": None, "lo": None, "hi": None}
    assert abs(kappa - sk) < 1e-12, (counts, kappa, sk)
    se = float(np.sqrt(r.var_kappa))
    return {"counts": counts, "kappa": kappa, "se": se, "lo": kappa - Z95 * se, "hi": kappa + Z95 * se}


def newcombe_paired(t):
    """Newcombe (1998), 'Improved confidence intervals for the difference between binomial
    proportions based on paired data', method 10: p1 = (a+b)/n (A), p2 = (a+c)/n (B), interval of
    p2 − p1 from the two Wilson intervals and phi."""
    (a, b), (c, d) = t
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = proportion_confint(a + b, n, alpha=0.05, method="wilson")
    l2, u2 = proportion_confint(a + c, n, alpha=0.05, method="wilson")
    den = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / np.sqrt(den) if den > 0 else 0.0
    diff = p2 - p1
    lo = diff - np.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    hi = diff + np.sqrt(max(0.0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return {"table": t, "d": diff, "lo": float(lo), "hi": float(hi)}


def audit_point(seed, run, task, key, question):
    h = hashlib.sha256("\0".join([seed, run, task, "\u0001" if key is None else key, question]).encode()).digest()
    return int.from_bytes(h[:6], "big") / 2**48


audit_keys = [f"k{i}" for i in range(200)] + [None, ""]
stats = {"wilson": [], "newcombe": [], "cohen": [], "quadratic": [], "mcnemar": [], "paired": []}
for k, n in wilson_cases:
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    stats["wilson"].append({"k": k, "n": n, "lo": float(lo), "hi": float(hi)})
for k1, n1, k2, n2 in newcombe_cases:
    lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff", alpha=0.05)
    stats["newcombe"].append({"k1": k1, "n1": n1, "k2": k2, "n2": n2, "d": k1 / n1 - k2 / n2, "lo": float(lo), "hi": float(hi)})
for counts in kappa_cases:
    stats["quadratic"].append(kappa_entry(counts, "quadratic"))
    stats["cohen"].append(kappa_entry(counts, None))
for b, c in mcnemar_cases:
    r = mcnemar([[0, b], [c, 0]], exact=True)
    stats["mcnemar"].append({"b": b, "c": c, "p": float(r.pvalue)})
for t in paired_cases:
    stats["paired"].append(newcombe_paired(t))
stats["audit"] = {
    "seed": "switchyard-audit-1",
    "run": "run-ref",
    "task": "gate",
    "question": "q",
    "fractions": [0.1, 0.25, 0.5],
    "keys": audit_keys,
    "points": [audit_point("switchyard-audit-1", "run-ref", "gate", k, "q") for k in audit_keys],
}
write("test/fixtures/stats/reference.json", stats)


# ---------------------------------------------------------------- fits
def dataset(n, rule):
    c = [round(0.05 + 0.9 * i / (n - 1), 6) for i in range(n)]
    y = [1 if rule(i, ci) else 0 for i, ci in enumerate(c)]
    return c, y


cases = {
    # agreement rises with confidence, with some noise: a > 0
    "rising": dataset(40, lambda i, c: (i * 7) % 10 < 10 * c),
    # agreement flips at 0.5, three answers the other way: a steep map
    "steep": dataset(30, lambda i, c: (c > 0.5) != (i in (3, 20, 26))),
    # agreement falls with confidence: the free fit has a < 0, so the map is the constant base rate
    "falling": dataset(24, lambda i, c: (i * 7) % 10 >= 10 * c),
}


def logit(c):
    x = min(1 - 1e-6, max(1e-6, c))
    return np.log(x / (1 - x))


def targets(y):
    pos, n = sum(y), len(y)
    return np.array([(pos + 1) / (pos + 2) if v else 1 / (n - pos + 2) for v in y])


def logistic(z, t, intercept):
    """The cross-entropy fit on soft targets t: each answer is two weighted rows, 1 with weight t and 0 with 1 − t."""
    X = np.concatenate([z, z])[:, None]
    Y = np.concatenate([np.ones(len(z)), np.zeros(len(z))])
    W = np.concatenate([t, 1 - t])
    m = LogisticRegression(penalty=None, fit_intercept=intercept, solver="newton-cg", tol=1e-14, max_iter=10000)
    with warnings.catch_warnings():
        # newton-cg reports "failed to converge" at tol 1e-14 when it has: SciPy's BFGS agrees below.
        warnings.simplefilter("ignore")
        m.fit(X, Y, sample_weight=W)
    return float(m.coef_[0][0]), float(m.intercept_[0]) if intercept else 0.0


def loss(a, b, z, t):
    u = a * z + b
    return float(np.sum(np.logaddexp(0, u) - t * u))


BANDS = [0, 50, 70, 80, 90, 95, 101]


def ece(pred, y):
    pred, y = np.asarray(pred, float), np.asarray(y, float)
    k = np.minimum(100, np.floor(pred * 100 + 1e-9))
    band = np.digitize(k, BANDS[1:-1])
    total = 0.0
    for b in range(len(BANDS) - 1):
        m = band == b
        if m.any():
            total += m.sum() / len(pred) * abs(pred[m].mean() - y[m].mean())
    return float(total)


fits = {}
grid = [i / 200 for i in range(201)]
for name, (c, y) in cases.items():
    z = np.array([logit(v) for v in c])
    t = targets(y)
    a, b = logistic(z, t, True)
    # SciPy's optimiser on the same loss agrees with scikit-learn's fit.
    r = minimize(lambda p: loss(p[0], p[1], z, t), [1.0, 0.0], method="BFGS", options={"gtol": 1e-12})
    assert abs(r.x[0] - a) < 1e-5 and abs(r.x[1] - b) < 1e-5, (name, r.x, a, b)
    if a < 0:
        a, b = 0.0, float(np.log(np.mean(t) / (1 - np.mean(t))))
    ta, _ = logistic(z, t, False)
    s = minimize_scalar(lambda v: loss(v, 0.0, z, t), bounds=(-50, 50), method="bounded", options={"xatol": 1e-12})
    assert abs(s.x - ta) < 1e-5, (name, s.x, ta)
    iso = IsotonicRegression(increasing=True, out_of_bounds="clip").fit(c, y)
    platt = [float(expit(a * logit(v) + b)) for v in c]
    fits[name] = {
        "c": c,
        "y": y,
        "platt": {"a": a, "b": b},
        "temperature_a": ta,
        "isotonic": {"grid": grid, "map": [float(v) for v in iso.predict(grid)]},
        "ece_raw": ece(c, y),
        "brier_raw": float(brier_score_loss(y, c)),
        "ece_platt": ece(platt, y),
        "brier_platt": float(brier_score_loss(y, platt)),
    }
write("test/fixtures/fit/reference.json", fits)
print("wrote test/fixtures/stats/reference.json and test/fixtures/fit/reference.json")
