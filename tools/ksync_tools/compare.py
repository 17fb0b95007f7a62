# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Do two benchmark runs agree? Compares every row that both RESULTS_FOLDERs (written by `tools/ksync bench`)
hold, median against median, and prints a Markdown summary: how many rows agree within noise, the largest
differences, and every row that does not agree.
Noise, per row: the larger of the two runs' spreads ((max - min) / median over the repetitions) plus a
2 % allowance for what repetitions within one run cannot see (clock and thermal state, placement in memory).
Rows under 20 µs are listed apart: there a microsecond of launch jitter is already 5 %.
Machine or code: the rows are also split into ksync's and the baselines' (code ksync did not write: Kokkos,
CUDA, CUB, cuBLAS, cuSPARSE, Kokkos Kernels, the device copy). When the baselines moved as ksync's rows did,
the two runs' machines differ, not the code.
usage: compare-runs REFERENCE_FOLDER RERUN_FOLDER [--fail]   (--fail: exit 1 when a row disagrees)"""

import pathlib
import sys

from ksync_tools.results import load
from ksync_tools.tables import markdown_table

ALLOWANCE = 0.02
SHORT = 20e-6
# A row is a baseline's when its first path segment, or any later one, names code ksync did not write.
BASELINE_FIRST = {"kokkos", "cuda", "cub", "cublas", "kokkos_kernels", "portable:cub"}
BASELINE_ANY = {"cub", "cusparse", "cusparse_cublas", "kokkos_host_scalars", "kokkos_kernels_host_scalars",
                "device_copy", "device_copy_cold", "copy_and_synchronize", "hand_written", "range_policy"}


def is_baseline(name):
    segments = name.split("/")
    return segments[0] in BASELINE_FIRST or any(s in BASELINE_ANY for s in segments[1:])


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main():
    arguments = [a for a in sys.argv[1:] if a != "--fail"]
    if len(arguments) != 2:
        sys.exit(__doc__)
    reference, _ = load(pathlib.Path(arguments[0]))
    rerun, _ = load(pathlib.Path(arguments[1]))
    common = sorted(set(reference) & set(rerun))
    if not common:
        sys.exit("compare-runs: the two folders share no benchmark rows")
    verdicts = []
    for name in common:
        a, b = reference[name], rerun[name]
        if not a["median"] or not b["median"]:
            continue
        change = b["median"] / a["median"] - 1
        noise = max(a["spread"], b["spread"]) + ALLOWANCE
        verdicts.append((name, a["median"], b["median"], change, noise, abs(change) <= noise))
    long_rows = [v for v in verdicts if v[1] >= SHORT]
    short_rows = [v for v in verdicts if v[1] < SHORT]
    print(f"# {arguments[1]} against {arguments[0]}\n")
    print(f"{len(verdicts)} rows in both runs. Noise per row: the larger spread of the two runs + "
          f"{ALLOWANCE:.0%}.\n")
    summary = []
    for label, rows in ((f"≥ {SHORT * 1e6:.0f} µs", long_rows), (f"< {SHORT * 1e6:.0f} µs", short_rows)):
        if not rows:
            continue
        changes = sorted(abs(v[3]) for v in rows)
        agree = sum(v[5] for v in rows)
        summary.append([label, f"{agree} of {len(rows)} ({agree / len(rows):.0%})", f"{changes[len(changes) // 2]:.1%}",
                        f"{changes[-1]:.1%}"])
    print("\n".join(markdown_table(["rows", "agree within noise", "median \\|change\\|", "largest \\|change\\|"],
                                   "lrrr", summary)))
    print("\nksync's rows and the baselines' (signed change: a machine that is slower moves both):\n")
    split = []
    for label, rows in ((f"≥ {SHORT * 1e6:.0f} µs", long_rows), (f"< {SHORT * 1e6:.0f} µs", short_rows)):
        for whose, group in (("ksync", [v for v in rows if not is_baseline(v[0])]),
                             ("baselines", [v for v in rows if is_baseline(v[0])])):
            if group:
                agree = sum(v[5] for v in group)
                split.append([label, whose, f"{agree} of {len(group)} ({agree / len(group):.0%})",
                              f"{median(v[3] for v in group):+.1%}"])
    print("\n".join(markdown_table(["rows", "whose", "agree within noise", "median change"], "llrr", split)))
    disagreeing = [v for v in verdicts if not v[5]]
    if disagreeing:
        print("\nRows outside their noise:\n")
        lines = [[name, f"{a * 1e6:.2f} µs", f"{b * 1e6:.2f} µs", f"{change:+.1%}", f"{noise:.1%}"]
                 for name, a, b, change, noise, _ in sorted(disagreeing, key=lambda v: -abs(v[3]))]
        print("\n".join(markdown_table(["row", "reference", "re-run", "change", "noise"], "lrrrr", lines)))
    if "--fail" in sys.argv and disagreeing:
        sys.exit(1)


if __name__ == "__main__":
    main()
