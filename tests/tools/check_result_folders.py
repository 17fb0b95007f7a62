#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Every committed results folder whose fingerprint carries a source tree hash (tools/fingerprint) is the
commit its name ends with: git's hash of that commit's tree equals the hash measured where the run ran.
Folders from before the hash are listed as not verifiable. A folder without fingerprint.json is listed as
such; from RULE_DATE on (CONTRIBUTING.md's results-folder rule) it fails unless its README says why it has
none. With nothing checkable (a shallow clone) the test exits 77 (skipped).
usage: check_result_folders.py SOURCE_DIR"""

import json
import pathlib
import re
import sys

sys.dont_write_bytecode = True

RULE_DATE = "2026-12-02"  # CONTRIBUTING.md asks every results folder for a fingerprint.json from then on


def main():
    root = pathlib.Path(sys.argv[1])
    sys.path.insert(0, str(root / "tools"))
    from ksync_tools import source_tree  # noqa: E402

    fingerprint = source_tree
    failures, checked = [], 0
    for folder in sorted((root / "docs" / "results").iterdir()):
        path = folder / "fingerprint.json"
        if not path.exists():
            readme = folder / "README.md"
            says_why = readme.exists() and "fingerprint.json" in readme.read_text()
            if says_why:
                print(f"{folder.name}: no fingerprint.json (its README says why): not verifiable")
            elif folder.name[:10] < RULE_DATE:
                print(f"{folder.name}: no fingerprint.json (recorded before the rule): not verifiable")
            else:
                failures.append(f"{folder.name}: no fingerprint.json, and its README does not say why")
            continue
        data = json.loads(path.read_text())
        if "source_tree_sha256" not in data:
            print(f"{folder.name}: no source tree hash (recorded before tools/fingerprint had one): not verifiable")
            continue
        named = re.search(r"-([0-9a-f]{7,40})$", folder.name)
        if not named:
            failures.append(f"{folder.name}: the folder's name does not end with the commit it measured")
            continue
        verdict = fingerprint.attribution(data, root, commit=named.group(1))
        print(f"{folder.name}: {verdict}")
        if "no git history" in verdict:
            continue  # a clone without that commit (shallow): nothing to compare with here
        checked += 1
        if not verdict.startswith("commit "):
            failures.append(f"{folder.name}: {verdict}")
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        sys.exit(1)
    if checked == 0:
        print("no folder could be checked here (no hashed folder, or no git history): skipped")
        sys.exit(77)


if __name__ == "__main__":
    main()
