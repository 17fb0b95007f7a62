#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Applies a worked example of docs/architecture.md to a copy of the sources, so that the diff a reader is
shown is the diff a test compiles (tests/strategy_example/run.cmake).

The example is the ```diff block after the line `<!-- strategy example: NAME -->`. Per file it holds
`--- a/PATH` and `+++ b/PATH` (`+++ b/PATH (new)` for a new file, whose lines all start with "+"), then
hunks: an `@@ ... @@` line (free text, no line numbers), then lines starting with " " (context), "-" (removed)
or "+" (added). A hunk's context and removed lines must occur, in order and adjacent, in the file after the
previous hunk; a hunk that does not is an error, so a diff that went stale with the code fails the test.

usage: apply_doc_diff.py DOC NAME TREE [--without TEXT]
  --without TEXT  leave out the hunks that add a line containing TEXT (to show what the build says
                  without them: the example's table row, say)
"""

import argparse
import pathlib
import re
import sys


def example_block(doc, name):
    lines = doc.read_text().splitlines()
    marker = f"<!-- strategy example: {name} -->"
    try:
        start = lines.index(marker)
    except ValueError:
        sys.exit(f"apply_doc_diff: {doc} has no line {marker!r}")
    begin = lines.index("```diff", start) + 1
    end = lines.index("```", begin)
    return lines[begin:end]


def file_patches(block):
    """[(path, is_new, [hunk lines ...] per hunk)]"""
    patches, current = [], None
    for line in block:
        if line.startswith("--- a/"):
            continue
        match = re.match(r"\+\+\+ b/(\S+)(\s+\(new\))?$", line)
        if match:
            current = (match.group(1), bool(match.group(2)), [[]])
            patches.append(current)
        elif line.startswith("@@"):
            if current[2][-1]:
                current[2].append([])
        elif current is None:
            sys.exit(f"apply_doc_diff: a line before the first file: {line!r}")
        else:
            current[2][-1].append(line)
    return patches


def apply_hunk(text, start, hunk, path):
    before = [line[1:] for line in hunk if line[:1] in (" ", "-")]
    after = [line[1:] for line in hunk if line[:1] in (" ", "+")]
    for i in range(start, len(text) - len(before) + 1):
        if text[i:i + len(before)] == before:
            return text[:i] + after + text[i + len(before):], i + len(after)
    sys.exit(f"apply_doc_diff: {path}: no place for the hunk\n" + "\n".join(hunk))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("doc", type=pathlib.Path)
    parser.add_argument("name")
    parser.add_argument("tree", type=pathlib.Path)
    parser.add_argument("--without")
    args = parser.parse_args()
    for path, is_new, hunks in file_patches(example_block(args.doc, args.name)):
        if args.without:
            hunks = [hunk for hunk in hunks
                     if not any(line.startswith("+") and args.without in line for line in hunk)]
        target = args.tree / path
        if is_new:
            target.write_text("\n".join(line[1:] for hunk in hunks for line in hunk) + "\n")
            continue
        text, start = target.read_text().splitlines(), 0
        for hunk in hunks:
            text, start = apply_hunk(text, start, hunk, path)
        target.write_text("\n".join(text) + "\n")
        print(f"apply_doc_diff: {path}: {len(hunks)} hunk(s) applied")


if __name__ == "__main__":
    main()
