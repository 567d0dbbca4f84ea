"""softmax_mlir.calibrate: the skip-threshold sweep on the trained model's
sample (test/Integration/data/blasst) through our CPU kernel, and the fits."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from softmax_mlir import calibrate

DATA = Path(__file__).resolve().parents[2] / "test" / "Integration" / "data" / "blasst"


def test_fit_recovers_scale_factor():
    # The best lambda of each length is exactly 3 / L: the fit gives a = 3.
    records = []
    for n in (128, 256, 512):
        for lam in (3.0 / n, 100.0 / n):
            records.append({"length": n, "lambda": lam, "sparsity": 0.1 + lam,
                            "rel_err": 0.0 if lam < 1.0 / n * 50 else 1.0})
    fit = calibrate.fit(records, max_rel_err=1e-2)
    assert fit["scale_factor"]["a"] == pytest.approx(3.0)
    assert fit["scale_factor"]["rms_log_residual"] == pytest.approx(0.0, abs=1e-12)
    assert fit["better_fit"] == "scale_factor"


def test_sweep_on_model_sample(softmax_opt, mlir_runner, tmp_path):
    out = tmp_path / "calib.json"
    args = ["--q", str(DATA / "q_layer3.npy"), "--k", str(DATA / "k_layer3.npy"),
            "--v", str(DATA / "v_layer3.npy"), "--tile", "1,16",
            "--lengths", "128,256", "--lambdas", "1e-5,1e-3,3e-2", "--out", str(out)]
    assert calibrate.main(args) == 0
    result = json.loads(out.read_text())
    assert result["tile"] == [1, 16] and result["causal"]
    sweep = result["sweep"]
    assert len(sweep) == 6
    # Something is skipped, so the sweep measures something; the tiny
    # lambda stays close to dense.
    assert max(r["skipped"] for r in sweep) > 0
    assert all(r["rel_err"] < 1e-3 for r in sweep if r["lambda"] == 1e-5)
    # KL(p_skip || p_dense) = lse_dense - lse_skip >= 0, larger with lambda.
    for n in (128, 256):
        kl = [r["row_kl_max"] for r in sweep if r["length"] == n]
        assert kl[0] <= kl[-1]
    assert result["operand"]["kind"] == "scale_factor"
    assert result["operand"]["value"] > 0


def test_bad_tile(tmp_path):
    with pytest.raises(SystemExit):
        calibrate.main(["--q", str(DATA / "q_layer3.npy"), "--k", str(DATA / "k_layer3.npy"),
                        "--v", str(DATA / "v_layer3.npy"), "--tile", "0,16",
                        "--out", str(tmp_path / "x.json")])
