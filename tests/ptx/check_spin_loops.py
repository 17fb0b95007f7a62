#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reads the PTX of spin_loops.cu and checks, per kernel, whether the flag's load sits inside the spin loop.

A loop in PTX is a backward branch: `bra LABEL` (predicated or not) after `LABEL:`. A load "re-reads" when an
`ld.` instruction lies between such a label and its backward branch. Expected (the spinning-flag trap): the
plain load is hoisted out of every loop; the volatile and the acquire load are inside one, and so are the
loads of ksync's two grid barriers (grid/barrier.cuh)."""

import re
import sys

EXPECTED = {
    "spin_on_plain_flag": False,
    "spin_on_volatile_flag": True,
    "spin_on_acquire_flag": True,
    "library_spin_barrier": True,
    "library_volatile_spin_barrier": True,
}


def kernels(ptx):
    for match in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\n\}", ptx, re.S):
        yield match.group(1), match.group(0)


def loads_inside_loops(body):
    """Returns (number of loops, the load instructions inside them)."""
    lines = [line.strip() for line in body.splitlines()]
    labels = {}
    loops = 0
    found = []
    for index, line in enumerate(lines):
        label = re.match(r"^(\$?\w+):$", line)
        if label:
            labels[label.group(1)] = index
            continue
        branch = re.search(r"\bbra(?:\.uni)?\s+(\$?\w+);", line)
        if branch and branch.group(1) in labels:  # a backward branch closes a loop
            loops += 1
            start = labels[branch.group(1)]
            found += [l for l in lines[start:index] if re.match(r"^(@%p\d+\s+)?ld\.", l)]
    return loops, found


def main():
    ptx = open(sys.argv[1]).read()
    seen = dict(kernels(ptx))
    failures = []
    for name, should_reload in EXPECTED.items():
        if name not in seen:
            failures.append(f"{name}: not in the PTX")
            continue
        loops, loads = loads_inside_loops(seen[name])
        if loads:
            verdict = "re-reads the flag in its loop"
        elif loops:
            verdict = "loads the flag once, then spins on a register (hoisted)"
        else:
            verdict = "loads the flag once; the loop is gone"
        print(f"{name}: {verdict}" + (f" [{'; '.join(loads)}]" if loads else ""))
        if bool(loads) != should_reload:
            failures.append(f"{name}: expected {'a load inside' if should_reload else 'no load inside'} the loop")
    if failures:
        sys.exit("spin-loop PTX check failed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    main()
