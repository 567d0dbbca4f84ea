#!/usr/bin/env python3
"""Runs, on a GPU machine, the executables build-gpu-tests.py bundled, and
checks each one's output against its test's CHECK and CHECK-NOT lines the
way FileCheck reads them here (a substring, in order; a CHECK-NOT holds
between its neighbours). FileCheck itself is not there: it needs LLVM.

Usage: run-gpu-tests.py [bundle-dir]    (default: this script's folder)
Ends with "N passed, N failed".
"""
import os
import re
import subprocess
import sys


def checks(test):
    out = []
    for line in open(test):
        m = re.match(r"^#\s*(CHECK(?:-NOT)?):\s?(.*)$", line.rstrip("\n"))
        if m:
            out.append((m.group(1), m.group(2).strip()))
    return out


def verify(output, directives):
    pos, pending_not = 0, []
    for kind, text in directives:
        if kind == "CHECK-NOT":
            pending_not.append(text)
            continue
        found = output.find(text, pos)
        if found < 0:
            return "missing: %s" % text
        for bad in pending_not:
            if bad in output[pos:found]:
                return "found CHECK-NOT: %s" % bad
        pending_not, pos = [], found + len(text)
    for bad in pending_not:
        if bad in output[pos:]:
            return "found CHECK-NOT: %s" % bad
    return None


def main():
    bundle = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))
    passed = failed = 0
    for line in open(os.path.join(bundle, "manifest.txt")):
        exe, test = line.split()
        proc = subprocess.run([os.path.join(bundle, exe)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=600)
        problem = verify(proc.stdout, checks(os.path.join(bundle, test)))
        if problem is None and proc.returncode:
            problem = "exit status %d" % proc.returncode
        print("== %s (%s): %s" % (exe, test, "PASS" if problem is None else "FAIL, " + problem))
        print(proc.stdout.rstrip())
        if problem is None:
            passed += 1
        else:
            failed += 1
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
