#!/usr/bin/env python3
"""Differential soak of the CPU pipeline: random valid programs, compiled
through ``softmax-opt --softmax-to-cpu`` and run with ``mlir-runner``,
against a float64 (long double) reference.

From one seed S the soak draws *modules*. Module m gets its pipeline
options from the seed (S, m): ``vector-width`` (the host's, 0 = scalar
loops, 1..64), ``three-pass``, ``exp``, ``threads`` (1, 2, 0 = the OpenMP
runtime's choice) and ``reduction-tile-size``; then 20 to 120 programs,
program p drawn from (S, m, p) alone: one ``func.func`` with one
softmax, log_softmax, logsumexp (soak_rows.py) or attention
(soak_attention.py) op, and its inputs. One ``main`` calls every program
and prints every result's bits, so one softmax-opt and one mlir-runner
process check the whole module (process start and JIT setup dominate a
single small program). Each module also carries a few programs the
pipeline must refuse (soak_refusals.py), checked with
``--verify-diagnostics`` in one more softmax-opt run.

A failure is a result outside its bound, a compile or run error on the
module (the programs are then compiled alone to name the culprits), or a
refusal that did not give its diagnostic. Each is printed with the seed,
the options, the program and the command that reproduces it alone
(``--seed S --module m --program p``; ``--keep DIR`` writes the modules).

Known failures (README.md, "Known failures") are drawn only with
``--include-known``; every program left out is counted, by reason.

Output: ``module m: N programs ... ok`` lines (``-v``), failure reports,
and a summary ``PASS: N programs checked in M modules ...`` or ``FAIL: ...``;
the exit status is non-zero on any failure.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import soak_attention  # noqa: E402
import soak_refusals  # noqa: E402
import soak_rows  # noqa: E402
from soak_mlir import IBITS, PRELUDE  # noqa: E402
from softmax_check import INT_RE, MEMREF_RE, default_tool, resolve_seed  # noqa: E402

#: Where mlir-runner and its runtime libraries are: Debian's LLVM 22, or
#: $SOFTMAX_LLVM_PREFIX (a copy of that tree on a machine without it, as
#: scripts/soak-parallel.sh runs it).
LLVM = Path(os.environ.get("SOFTMAX_LLVM_PREFIX", "/usr/lib/llvm-22"))

#: Programs left out unless --include-known, with the reason (README.md,
#: "Known failures"). Each takes (program, options) and says whether the
#: program is one of them.
def _decomposed(p, opts) -> bool:
    """The op goes through softmax-decompose (scalar loops), not the
    vector mapping."""
    if isinstance(p, soak_attention.AttentionProgram):
        return opts["vector-width"] == 0
    return opts["vector-width"] == 0 or p.dtype == "f64" or p.acc_type == "f64"


def _host_width() -> int:
    """f32 lanes of the host's widest registers (the heuristic's choice)."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return 8
    return 16 if " avx512f" in flags else 8 if " avx" in flags else 4


HOST_WIDTH = _host_width()


def _attention_width(p, opts) -> int:
    """The vector width the CPU mapping uses for attention program p."""
    if p.strategy:
        return int(p.strategy.split("vector_width = ")[1].split(",")[0].split(">")[0])
    return opts["vector-width"] if opts["vector-width"] > 0 else HOST_WIDTH


KNOWN_FAILURES = {
    "attention-d0": (
        "refused, not computed: softmax.attention with a head dimension D = 0 gets a "
        "diagnostic from softmax-map-to-cpu (it crashed until 1fb7c9a; the decomposed "
        "path computes it), and a refusal fails the whole module",
        lambda p, o: isinstance(p, soak_attention.AttentionProgram) and p.d == 0
        and not _decomposed(p, o)),
}
# Fixed since the soak found them (bench/results/diff_soak.md), so drawn
# again: the i1 mask over a whole block of keys (read as packed bits), and
# empty results under reduction tiling (an out-of-bounds extract_slice).


def draw_options(seed: int, m: int) -> tuple[dict, int]:
    """Module m's pipeline options and program count."""
    rng = np.random.default_rng([seed, m, 0])
    c = rng.choice
    opts = {
        "vector-width": int(c([-1, -1, -1, -1, 0, 0, 1, 2, 4, 8, 16, 32, 64])),
        "three-pass": str(c(["auto", "auto", "auto", "recompute", "reload", "tiled"])),
        "exp": str(c(["fast", "fast", "polynomial"])),
        "threads": int(c([1, 1, 1, 1, 2, 0])),
        "reduction-tile-size": int(c([0, 0, 0, 0, 0, 1, 7, 16, 64, 4096])),
    }
    return opts, int(rng.integers(20, 121))


def option_string(opts: dict) -> str:
    """The --softmax-to-cpu option string: defaults left out."""
    defaults = {"vector-width": -1, "three-pass": "auto", "exp": "fast", "threads": 1,
                "reduction-tile-size": 0}
    return " ".join(f"{k}={v}" for k, v in opts.items() if v != defaults[k])


def draw_program(seed: int, m: int, p: int, opts: dict, include_known: bool,
                 skipped: collections.Counter):
    """Program p of module m (redrawn, from the same stream, while it is a
    known failure)."""
    rng = np.random.default_rng([seed, m, 1, p])
    for _ in range(50):
        op = str(rng.choice(["softmax", "softmax", "log_softmax", "logsumexp", "attention",
                             "attention"]))
        name = f"p{p}"
        prog = soak_attention.draw(rng, name) if op == "attention" \
            else soak_rows.draw(rng, name, op)
        # A strategy request on an op that is decomposed to linalg is
        # refused (softmax-decompose says so), not dropped: such a program
        # asks for none.
        if getattr(prog, "strategy", None) and _decomposed(prog, opts):
            prog = dataclasses.replace(prog, strategy=None)
        # The vector path honours the skip tile [1, its width] and refuses
        # any other (soak_refusals.py's business): give it that tile.
        if getattr(prog, "skip", None) and not _decomposed(prog, opts):
            kind, lam, per_batch, _, counts = prog.skip
            prog = dataclasses.replace(
                prog, skip=(kind, lam, per_batch, (1, _attention_width(prog, opts)), counts))
        reason = None if include_known else next(
            (k for k, (_, f) in KNOWN_FAILURES.items() if f(prog, opts)), None)
        if reason is None:
            return prog
        skipped[reason] += 1
    raise RuntimeError("no program drawn")


def module_text(progs: list) -> tuple[str, list[int]]:
    """The module and, per program, the bit widths of the memrefs it
    prints (in order)."""
    funcs, main, widths = [PRELUDE], ["func.func @main() {"], []
    for i, pr in enumerate(progs):
        funcs.append(pr.func_text())
        lines, n = pr.main_lines(str(i))
        main += lines
        if isinstance(pr, soak_attention.AttentionProgram):
            # The skip counts come last, as i64 values (width -64).
            counts = bool(pr.skip and pr.skip[4])
            widths.append([IBITS[pr.out_dtype]] + [32] * (n - 1 - counts)
                          + [-64] * counts)
        else:
            widths.append([IBITS[pr.dtype]])
    main += ["  return", "}"]
    return "module {\n" + "\n".join(funcs + ["\n".join(main)]) + "\n}\n", widths


def parse_outputs(text: str, widths: list[list[int]]) -> list[list[np.ndarray]]:
    """The printed memrefs, reinterpreted from their bits, per program."""
    heads = list(MEMREF_RE.finditer(text))
    flat = [b for w in widths for b in w]
    if len(heads) != len(flat):
        raise RuntimeError(f"expected {len(flat)} printed memrefs, got {len(heads)}")
    arrays = []
    for i, (h, bits) in enumerate(zip(heads, flat)):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        sizes = [int(s) for s in h.group(2).replace(",", " ").split()]
        ints = [int(v) for v in INT_RE.findall(text[h.end():end])]
        count = int(np.prod(sizes)) if sizes else 1
        # printMemref prints one element per innermost row even when the
        # innermost size is 0 (upstream's runner utils): nothing to read.
        if count == 0:
            ints = []
        if len(ints) != count:
            raise RuntimeError(f"memref #{i}: expected {count} values, got {len(ints)}")
        if bits < 0:  # integers, as printed
            arrays.append(np.array(ints, dtype=np.int64).reshape(sizes))
            continue
        ut, ft = (np.uint32, np.float32) if bits == 32 else (np.uint64, np.float64)
        arr = np.array([v & ((1 << bits) - 1) for v in ints], dtype=ut)
        arrays.append(arr.view(ft).astype(np.float64).reshape(sizes))
    out, pos = [], 0
    for w in widths:
        out.append(arrays[pos:pos + len(w)])
        pos += len(w)
    return out


def _stderr(b: bytes) -> str:
    """A tool's stderr, its head (the error, or what crashed) and its tail."""
    t = b.decode(errors="replace")
    return t if len(t) <= 3000 else t[:2000] + "\n...\n" + t[-1000:]


class Runner:
    def __init__(self, args):
        self.args = args
        self.times: collections.Counter = collections.Counter()

    def compile_and_run(self, path: Path, opts: dict) -> tuple[str | None, str]:
        """(runner stdout, '') or (None, what failed)."""
        a = self.args
        s = option_string(opts)
        # Bytecode to the runner: it parses 20% faster than the text.
        lower = [a.softmax_opt, str(path), "--softmax-to-cpu" + (f"={s}" if s else ""),
                 "--emit-bytecode"]
        libs = [str(LLVM / "lib" / n) for n in ("libmlir_c_runner_utils.so",
                                               "libmlir_runner_utils.so")]
        if opts["threads"] != 1:
            libs.append(str(LLVM / "lib" / "libomp.so"))
        run = [a.mlir_runner, "-e", "main", "-entry-point-result=void",
               "-shared-libs=" + ",".join(libs)]
        try:
            t0 = time.monotonic()
            low = subprocess.run(lower, capture_output=True, timeout=a.timeout)
            self.times["softmax-opt"] += time.monotonic() - t0
            if low.returncode:
                return None, (f"softmax-opt failed (exit {low.returncode}): {shlex.join(lower)}\n"
                              + _stderr(low.stderr))
            t0 = time.monotonic()
            out = subprocess.run(run, input=low.stdout, capture_output=True, timeout=a.timeout)
            self.times["mlir-runner"] += time.monotonic() - t0
        except subprocess.TimeoutExpired as e:
            return None, f"timed out after {a.timeout}s: {shlex.join(e.cmd)}"
        if out.returncode:
            return None, (f"mlir-runner failed (exit {out.returncode}): {shlex.join(lower)} | "
                          f"{shlex.join(run)}\n" + _stderr(out.stderr))
        return out.stdout.decode(), ""

    def refusals(self, path: Path, opts: dict) -> str:
        """Runs the refusal splits; '' when every diagnostic came."""
        s = option_string(opts)
        cmd = [self.args.softmax_opt, str(path), "--split-input-file", "--verify-diagnostics",
               "--softmax-to-cpu" + (f"={s}" if s else "")]
        p = subprocess.run(cmd, capture_output=True, timeout=self.args.timeout)
        if p.returncode:
            return (f"refusals failed (exit {p.returncode}): {shlex.join(cmd)}\n"
                    + _stderr(p.stderr))
        return ""


def reproduce_cmd(seed: int, m: int, p: int | None, extra: list[str]) -> str:
    cmd = ["diff_soak.py", "--seed", str(seed), "--module", str(m)]
    if p is not None:
        cmd += ["--program", str(p)]
    return shlex.join(cmd + extra)


def soak_module(seed: int, m: int, args, runner: Runner, workdir: Path, stats) -> list[str]:
    """Checks module m; returns its failure reports."""
    opts, count = draw_options(seed, m)
    indices = [args.program] if args.program is not None else list(range(count))
    progs = [draw_program(seed, m, p, opts, args.include_known, stats["skipped"])
             for p in indices]
    text, widths = module_text(progs)
    path = workdir / f"module_{m}.mlir"
    path.write_text(text)
    if args.emit:
        sys.stdout.write(text)
        return []
    extra = ["--include-known"] if args.include_known else []
    header = f"seed={seed} module={m} options=--softmax-to-cpu=\"{option_string(opts)}\""
    reports = []
    out, err = runner.compile_and_run(path, opts)
    if out is None:
        # Name the culprits: each program alone; then check the others.
        culprits = []
        for pr, p in zip(progs, indices):
            t, _ = module_text([pr])
            one = workdir / f"module_{m}_p{p}.mlir"
            one.write_text(t)
            o1, e1 = runner.compile_and_run(one, opts)
            if o1 is None:
                culprits.append(p)
                reports.append(f"COMPILE/RUN FAILURE {header} program={p}: {pr.summary()}\n"
                               f"{pr.func_text()}\n{e1}\n"
                               f"  reproduce: {reproduce_cmd(seed, m, p, extra)}")
        stats["failed_programs"] += len(culprits)
        if culprits:
            rest = [(pr, p) for pr, p in zip(progs, indices) if p not in culprits]
            progs, indices = [pr for pr, _ in rest], [p for _, p in rest]
            text, widths = module_text(progs)
            path = workdir / f"module_{m}_rest.mlir"
            path.write_text(text)
            out, err = runner.compile_and_run(path, opts) if progs else ("", "")
        if out is None:
            stats["failed_programs"] += 1
            reports.append(f"COMPILE/RUN FAILURE {header} (no program fails alone)\n{err}\n"
                           f"  reproduce: {reproduce_cmd(seed, m, None, extra)}")
            return reports
    try:
        outs = parse_outputs(out, widths)
    except RuntimeError as e:
        stats["failed_programs"] += 1
        return [f"BAD OUTPUT {header}: {e}\n  reproduce: {reproduce_cmd(seed, m, None, extra)}"]
    for pr, p, o in zip(progs, indices, outs):
        problems = pr.check(o, args.wrong_reference)
        stats["programs"] += 1
        stats["by_op"][pr.summary().split()[0]] += 1
        # How many thresholded programs ran, and in how many the kernel did
        # skip a tile (a skip that never happens tests nothing).
        if getattr(pr, "skip", None):
            stats["by_op"]["attention+skip"] += 1
            if pr.skip[4] and int(o[-1].ravel()[1]) > 0:
                stats["by_op"]["attention+skipped-tiles"] += 1
        if problems:
            stats["failed_programs"] += 1
            reports.append(f"MISMATCH {header} program={p}: {pr.summary()}\n"
                           + "\n".join(f"  - {x}" for x in problems) + "\n"
                           + pr.func_text() + "\n"
                           f"  reproduce: {reproduce_cmd(seed, m, p, extra)}")
    # The refusals of this module.
    if args.program is None and args.refusals:
        rng = np.random.default_rng([seed, m, 2])
        vector_path = opts["vector-width"] != 0
        splits = []
        for _ in range(args.refusals):
            r = soak_refusals.draw(rng, vector_path, args.include_known)
            if r is not None:
                splits.append(r[1])
                stats["refusals"] += 1
        if splits:
            rpath = workdir / f"module_{m}_refusals.mlir"
            rpath.write_text("\n// -----\n".join(splits) + "\n")
            e = runner.refusals(rpath, opts)
            if e:
                stats["failed_programs"] += 1
                reports.append(f"REFUSAL FAILURE {header}\n{e}\n  splits: {rpath}\n"
                               f"  reproduce: {reproduce_cmd(seed, m, None, extra)} --keep DIR")
    return reports


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve()
    repo = here.parents[3]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", default=None,
                    help="a number or 'random' (default: $SOFTMAX_TEST_SEED or the fixed one)")
    ap.add_argument("--modules", type=int, default=None, help="stop after this many modules")
    ap.add_argument("--programs", type=int, default=None,
                    help="stop once this many programs are checked")
    ap.add_argument("--time-limit", type=float, default=None, metavar="S",
                    help="start no module after S seconds")
    ap.add_argument("--first-module", type=int, default=0)
    ap.add_argument("--module", type=int, default=None, help="only this module")
    ap.add_argument("--program", type=int, default=None, help="only this program (with --module)")
    ap.add_argument("--refusals", type=int, default=3, help="refused programs per module")
    ap.add_argument("--include-known", action="store_true",
                    help="also draw the known failures (README.md)")
    ap.add_argument("--wrong-reference", action="store_true",
                    help="perturb every reference by 1e-3 (the soak must then fail)")
    ap.add_argument("--keep", metavar="DIR", help="write the modules to DIR")
    ap.add_argument("--emit", action="store_true", help="print the module(s) instead of running")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--softmax-opt", default=default_tool(
        "SOFTMAX_OPT", str(repo / "build" / "bin" / "softmax-opt")))
    ap.add_argument("--mlir-runner", default=default_tool(
        "MLIR_RUNNER", str(LLVM / "bin" / "mlir-runner")))
    args = ap.parse_args(argv)
    if args.program is not None and args.module is None:
        ap.error("--program needs --module")
    if args.module is None and args.modules is None and args.programs is None \
            and args.time_limit is None:
        ap.error("give --modules, --programs, --time-limit or --module")
    seed = resolve_seed(args.seed)
    keep = Path(args.keep) if args.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.TemporaryDirectory(prefix="diff_soak_")
    workdir = keep or Path(tmp.name)
    runner = Runner(args)
    stats = {"programs": 0, "failed_programs": 0, "refusals": 0,
             "skipped": collections.Counter(), "by_op": collections.Counter()}
    if not args.emit:
        print(f"diff_soak: seed {seed} (reproduce: diff_soak.py --seed {seed} ...)")
    failures: list[str] = []
    t0 = time.monotonic()
    m = args.module if args.module is not None else args.first_module
    done = 0
    while True:
        reports = soak_module(seed, m, args, runner, workdir, stats)
        done += 1
        for r in reports:
            print(r, flush=True)
        failures += reports
        if args.verbose:
            print(f"module {m}: {option_string(draw_options(seed, m)[0]) or 'defaults'}: "
                  f"{'FAIL' if reports else 'ok'}; {stats['programs']} programs so far, "
                  f"{time.monotonic() - t0:.1f}s", flush=True)
        m += 1
        if args.emit or args.module is not None:
            break
        if args.modules is not None and done >= args.modules:
            break
        if args.programs is not None and stats["programs"] >= args.programs:
            break
        if args.time_limit is not None and time.monotonic() - t0 >= args.time_limit:
            break
    if args.emit:
        return 0
    dt = time.monotonic() - t0
    first = args.module if args.module is not None else args.first_module
    ops = ", ".join(f"{k} {v}" for k, v in sorted(stats["by_op"].items()))
    skipped = "; ".join(f"{v} skipped as {k}" for k, v in sorted(stats["skipped"].items()))
    tail = (f"in {done} modules ({first}..{first + done - 1}), seed {seed}, {dt:.1f}s, "
            f"{stats['programs'] / max(dt, 1e-9):.1f} programs/s; {ops}; "
            f"{stats['refusals']} refusals{'; ' + skipped if skipped else ''}")
    if failures or stats["programs"] == 0:
        print(f"FAIL: {stats['failed_programs']} failures, {stats['programs']} programs "
              f"checked {tail}")
        print("time: " + ", ".join(f"{k} {v:.1f}s" for k, v in sorted(runner.times.items())))
        return 1
    print(f"PASS: {stats['programs']} programs checked {tail}")
    print("time: " + ", ".join(f"{k} {v:.1f}s" for k, v in sorted(runner.times.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
