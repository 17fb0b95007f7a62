# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Records what a benchmark run ran on, in FILE (JSON), for tools/ksync bench and tools/report-md:
  fingerprint FILE start KEY=VALUE...   the date, host, CPU model, cores, commit (and whether the tree
                                        had changes), compilers, CUDA, MPI (and whether it was built to
                                        read CUDA device memory), the GPU (name, driver, SM clock now and
                                        its maximum, temperature) and any KEY=VALUE given;
  fingerprint FILE end                  adds the GPU's SM clock and temperature at the end;
  fingerprint FILE verify [COMMIT]      says which commit the run may be attributed to (below); with COMMIT,
                                        whether the measured tree is COMMIT's (a declared commit can be wrong).
Whatever is missing (no git, no nvcc, no GPU) is recorded as such.

The commit is declared (KSYNC_COMMIT, where the copy being measured has no git history) or read from git;
beside it `start` records source_tree_sha256, a hash of the tree's own files computed the same way with or
without git (source_tree_hash). `verify`, and tools/report-md, attribute the run to the commit only when
git computes the same hash for that commit's tree; otherwise the run is "uncommitted"."""

import datetime
import json
import os
import pathlib
import socket
import sys

from ksync_tools.source_tree import attribution, run, source_tree_hash


def cpu_model():
    """The host CPU's model name: launch-bound rows (a few µs) move with it from one machine to the next."""
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return "unknown"


def gpus():
    line = run("nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu",
               "--format=csv,noheader")
    return line.splitlines() if line else ["none visible"]


def mpi():
    """The MPI on PATH (its mpirun's first line) and, for Open MPI, whether it was built to read CUDA device
    memory (ompi_info): ksync::mpi stages a halo through host memory where it was not. Programs record the
    path they took themselves (ksync_mpi_bench's "halo")."""
    version = run("mpirun", "--version")
    if not version:
        return {"mpi": "not found"}
    data = {"mpi": version.splitlines()[0]}
    info = run("ompi_info", "--parsable", "--all") or ""
    for line in info.splitlines():
        if line.startswith("mca:mpi:base:param:mpi_built_with_cuda_support:value:"):
            data["mpi_built_with_cuda_support"] = line.rpartition(":")[2]
    return data


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ("start", "end", "verify"):
        sys.exit(__doc__)
    path = pathlib.Path(sys.argv[1])
    if sys.argv[2] == "verify":
        print(attribution(json.loads(path.read_text()), commit=sys.argv[3] if len(sys.argv) > 3 else None))
        return
    if sys.argv[2] == "end":
        data = json.loads(path.read_text())
        data["gpu_at_end (name, driver, SM MHz, max SM MHz, °C)"] = gpus()
        data["finished_utc"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        path.write_text(json.dumps(data, indent=2) + "\n")
        return
    # KSYNC_COMMIT names the commit where the copy being measured carries no (or stale) git history.
    commit = os.environ.get("KSYNC_COMMIT") or run("git", "rev-parse", "HEAD")
    changed = None if os.environ.get("KSYNC_COMMIT") else run("git", "status", "--porcelain", "--untracked-files=no")
    nvcc = run("nvcc", "--version")
    data = {
        "started_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "commit": (commit or "unknown") + (" with uncommitted changes" if changed else ""),
        "source_tree_sha256": source_tree_hash(),
        "c++": (run("c++", "--version") or "unknown").splitlines()[0],
        "nvcc": nvcc.splitlines()[-1] if nvcc else "not found",
        **mpi(),
        "gpu_at_start (name, driver, SM MHz, max SM MHz, °C)": gpus(),
    }
    for pair in sys.argv[3:]:
        key, _, value = pair.partition("=")
        data[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


if __name__ == "__main__":
    main()
