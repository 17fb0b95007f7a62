# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The source tree hash tools/fingerprint records and checks: sha256 over (path, sha256 of content) of the
files git would track, computed the same way from disk (a copy without git history, as on the GPU machine)
and from git for a commit; a run is attributed to a commit only when the two agree."""

import hashlib
import pathlib
import subprocess


def run(*command):
    """stdout of `command`, stripped; None when it fails or is missing."""
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


ROOT = pathlib.Path(__file__).resolve().parent.parent.parent  # the repository


def ignored(relative, patterns):
    """Whether a path (relative, POSIX) is left out of the source tree: .git, and the repository's .gitignore
    patterns, which are all of two kinds: '/name/' (a top-level folder) and 'name' or 'name/' (anywhere)."""
    parts = relative.split("/")
    if parts[0] == ".git":
        return True
    for pattern in patterns:
        if pattern.startswith("/"):
            if parts[0] == pattern.strip("/"):
                return True
        elif pattern.rstrip("/") in parts:
            return True
    return False


def combine(files):
    """sha256 over (path, sha256 of content) pairs in path order: the tree's hash."""
    total = hashlib.sha256()
    for relative, content_hash in sorted(files):
        total.update(f"{relative}\0{content_hash}\n".encode())
    return total.hexdigest()


def source_tree_hash(root=ROOT):
    """The hash of the files under `root` that git would track (everything not ignored), read from disk: what
    a copy of the tree without git history (the GPU machine's) can compute."""
    patterns = [line.strip() for line in (root / ".gitignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    files = []
    for path in root.rglob("*"):
        relative = path.relative_to(root).as_posix()
        if path.is_file() and not path.is_symlink() and not ignored(relative, patterns):
            files.append((relative, hashlib.sha256(path.read_bytes()).hexdigest()))
    return combine(files)


def commit_tree_hash(commit, root=ROOT):
    """The same hash computed by git for `commit`'s tree; None when git or the commit is not there."""
    listing = run("git", "-C", str(root), "ls-tree", "-r", "-z", "--full-tree", commit)
    if listing is None:
        return None
    files = []
    for record in filter(None, listing.split("\0")):
        meta, _, relative = record.partition("\t")
        mode, kind, blob = meta.split()
        if kind != "blob" or mode == "120000":  # links: not files of the tree
            continue
        content = subprocess.run(["git", "-C", str(root), "cat-file", "blob", blob], capture_output=True,
                                 check=True).stdout
        files.append((relative, hashlib.sha256(content).hexdigest()))
    return combine(files)


def attribution(data, root=ROOT, commit=None):
    """How a run with fingerprint `data` may be named: 'commit X (verified ...)', 'uncommitted (...)', or
    'X (declared, not verified: ...)' where this machine cannot check. X: `commit`, else the declared one."""
    declared = commit or (data.get("commit") or "unknown").split()[0]
    recorded = data.get("source_tree_sha256")
    if not recorded:
        return f"{declared} (declared, not verified: the fingerprint has no source tree hash)"
    expected = commit_tree_hash(declared, root)
    if expected is None:
        return f"{declared} (declared, not verified: no git history with that commit here)"
    if expected != recorded:
        return (f"uncommitted (the measured source tree differs from commit {declared}'s: "
                f"{recorded[:12]} against {expected[:12]})")
    return f"commit {declared} (verified: the measured source tree hash {recorded[:12]} is that commit's)"
