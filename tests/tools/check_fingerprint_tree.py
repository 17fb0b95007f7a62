#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tools/fingerprint's source tree hash: computed from disk (as on a GPU machine without git history) it
equals git's for the committed tree, ignores what .gitignore ignores, and changes with any tracked file;
a run is attributed to its commit only when the hashes agree. usage: check_fingerprint_tree.py TOOLS WORK"""

import pathlib
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True


def git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def main():
    tools, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    sys.path.insert(0, str(tools))
    from ksync_tools import source_tree  # noqa: E402

    fingerprint = source_tree
    root = work / "tree"
    shutil.rmtree(root, ignore_errors=True)
    (root / "src").mkdir(parents=True)
    (root / ".gitignore").write_text("/build/\n__pycache__/\n")
    (root / "src" / "a.cpp").write_text("int a;\n")
    (root / "README.md").write_text("tree\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    failures = []

    on_disk = fingerprint.source_tree_hash(root)
    if on_disk != fingerprint.commit_tree_hash("HEAD", root):
        failures.append("the hash from disk differs from git's for the committed tree")
    (root / "build").mkdir()
    (root / "build" / "out.o").write_text("object")
    (root / "src" / "__pycache__").mkdir()
    (root / "src" / "__pycache__" / "x.pyc").write_text("cache")
    if fingerprint.source_tree_hash(root) != on_disk:
        failures.append("ignored files changed the hash")
    verified = fingerprint.attribution({"commit": "HEAD", "source_tree_sha256": on_disk}, root)
    if not verified.startswith("commit HEAD (verified"):
        failures.append(f"a matching tree is not attributed to its commit: {verified}")

    (root / "src" / "a.cpp").write_text("int a = 1;\n")
    changed = fingerprint.source_tree_hash(root)
    if changed == on_disk:
        failures.append("changing a tracked file left the hash unchanged")
    uncommitted = fingerprint.attribution({"commit": "HEAD", "source_tree_sha256": changed}, root)
    if not uncommitted.startswith("uncommitted"):
        failures.append(f"a changed tree is attributed to the commit: {uncommitted}")
    (root / "src" / "a.cpp").write_text("int a;\n")
    (root / "new.txt").write_text("untracked, not ignored\n")
    if fingerprint.source_tree_hash(root) == on_disk:
        failures.append("an untracked file the commit lacks left the hash unchanged")

    old = fingerprint.attribution({"commit": "HEAD"}, root)
    if "not verified" not in old:
        failures.append(f"a fingerprint without a hash is attributed: {old}")
    unknown = fingerprint.attribution({"commit": "0123456", "source_tree_sha256": on_disk}, root)
    if "not verified" not in unknown:
        failures.append(f"a commit missing here is attributed: {unknown}")

    for failure in failures:
        print("FAIL:", failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
