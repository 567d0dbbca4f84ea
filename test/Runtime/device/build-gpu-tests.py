#!/usr/bin/env python3
"""Builds the GPU runtime tests (test/Runtime/*-gpu.test) here, for a GPU
machine without MLIR or LLVM's tools.

Each test's RUN lines are taken as lit would run them, with lit's
substitutions: every line but the last of a group (softmax-opt, llc, the
host compiler) runs here; the executable a group ends with (`%t...exe 2>&1 |
FileCheck %s`) is kept in the bundle with the test's CHECK lines. The
runtime library is copied beside the executables, which find it through
RUNPATH $ORIGIN. Then, on the GPU machine:

    python3 <out>/run-gpu-tests.py          # runs each executable, checks it

Usage: build-gpu-tests.py [--build build] [--out build-gpu/tests] TEST...
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TOOLS = "/usr/lib/llvm-22/bin"


def site_value(build, name):
    with open(os.path.join(build, "test", "lit.site.cfg.py")) as f:
        m = re.search(r"^config\.%s = \"([^\"]*)\"" % name, f.read(), re.M)
    return m.group(1) if m else None


def run_lines(path):
    lines, current = [], ""
    for line in open(path):
        m = re.match(r"^#\s*RUN:\s?(.*)$", line.rstrip("\n"))
        if not m:
            continue
        current += m.group(1)
        if current.endswith("\\"):
            current = current[:-1]
            continue
        lines.append(current.strip())
        current = ""
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="build-gpu/tests")
    ap.add_argument("tests", nargs="+")
    args = ap.parse_args()

    build = os.path.abspath(args.build)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    runtime = os.path.join(build, "lib", "libsoftmax_cuda_runtime.so")
    if not os.path.exists(runtime):
        sys.exit("build-gpu-tests: %s missing (ninja -C %s)" % (runtime, args.build))
    shutil.copy(runtime, out)
    shutil.copy(os.path.join(HERE, "run-gpu-tests.py"), out)
    # Link-time only: lets the linker see libcuda.so.1 where no driver is.
    stub = os.path.join(out, "stub")
    os.makedirs(stub, exist_ok=True)
    if not os.path.lexists(os.path.join(stub, "libcuda.so.1")):
        os.symlink(site_value(build, "cuda_stub") or "/usr/local/cuda/lib64/stubs/libcuda.so",
                   os.path.join(stub, "libcuda.so.1"))
    host_cxx = site_value(build, "host_cxx") or "clang++-22"
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.join(build, "bin"), TOOLS, env["PATH"]])

    manifest = []
    for test in args.tests:
        test = os.path.abspath(test)
        name = os.path.splitext(os.path.basename(test))[0]
        tmp = os.path.join(out, name)
        subs = [
            ("%softmax_src_root", ROOT),
            ("%runtime_lib_dir", out),
            ("%host_cxx", host_cxx),
            ("%S", os.path.dirname(test)),
            ("%s", test),
            ("%t", tmp),
        ]
        for line in run_lines(test):
            for key, value in subs:
                line = line.replace(key, value)
            exe = re.match(r"^(\S+\.exe)\s+2>&1\s*\|\s*FileCheck\s+\S+\s*$", line)
            if exe:
                manifest.append((os.path.basename(exe.group(1)), os.path.basename(test)))
                continue
            # The executables find the runtime beside them on the GPU machine.
            line = line.replace("-Wl,-rpath," + out,
                                "-Wl,-rpath,'$ORIGIN' -Wl,-rpath-link," + stub)
            print("build-gpu-tests:", line, flush=True)
            if subprocess.run(line, shell=True, env=env, cwd=out).returncode:
                sys.exit("build-gpu-tests: failed: " + line)
        shutil.copy(test, out)
    with open(os.path.join(out, "manifest.txt"), "w") as f:
        for exe, test in manifest:
            f.write("%s %s\n" % (exe, test))
    for name in os.listdir(out):
        if name.endswith(".o"):
            os.remove(os.path.join(out, name))
    shutil.rmtree(stub)
    print("build-gpu-tests: %d executables in %s" % (len(manifest), out))


if __name__ == "__main__":
    main()
