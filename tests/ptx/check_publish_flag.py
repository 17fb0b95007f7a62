#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Hazard 10 (docs/hazards.md), read from the PTX of publish_flag.cu: a flag that publishes data needs a
release on the writer's side and an acquire on the reader's. The plain-flag kernel must have neither (the
hazard, as written); the release/acquire kernel must have both, and its reader must re-read the data after
the acquire."""

import re
import sys

RELEASE = re.compile(r"\b(st|red|atom)\.release\.|\bfence\.(acq_rel|sc)\.")
ACQUIRE = re.compile(r"\b(ld|atom)\.acquire\.|\bfence\.(acq_rel|sc)\.")


def kernel(ptx, name):
    match = re.search(r"\.entry\s+" + name + r"\s*\((.*?)\n\}", ptx, re.S)
    if not match:
        sys.exit(f"publish-flag PTX check failed: {name} is not in the PTX")
    return match.group(0)


def main():
    ptx = open(sys.argv[1]).read()
    failures = []
    plain = kernel(ptx, "publish_with_plain_flag")
    ordered = kernel(ptx, "publish_with_release_flag")
    for name, body, want in (("publish_with_plain_flag", plain, False), ("publish_with_release_flag", ordered, True)):
        release = bool(RELEASE.search(body))
        acquire = bool(ACQUIRE.search(body))
        print(f"{name}: release {'yes' if release else 'no'}, acquire {'yes' if acquire else 'no'}")
        if release != want or acquire != want:
            failures.append(f"{name}: expected {'a release and an acquire' if want else 'no release and no acquire'}")
    # In the twin the data is loaded again after the last acquire (not reused from before the wait).
    lines = ordered.splitlines()
    last_acquire = max(i for i, line in enumerate(lines) if ACQUIRE.search(line)) if ACQUIRE.search(ordered) else -1
    reloads = [line.strip() for line in lines[last_acquire + 1:] if re.match(r"\s*ld\.global", line)]
    print(f"publish_with_release_flag: global loads after the acquire: {len(reloads)}")
    if not reloads:
        failures.append("publish_with_release_flag: the data is not read after the acquire")
    if failures:
        sys.exit("publish-flag PTX check failed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    main()
