# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The report's section on the portable half against the plain Kokkos code it replaces: each portable row
beside its Kokkos counterpart of the same run and size, as the counterpart's median over the row's (≥ 1: the
portable form is at least as fast): the measure of a portable library's promise on every backend, and the
one a run on a CPU backend is read by.

A ratio below 1 is 'within noise' where the two rows' repetitions overlap (the row's fastest repetition is no
slower than the counterpart's slowest): on a shared 2-core machine the rows of one size vary by 10-25 % from
repetition to repetition, and a portable form that runs the same loop as Kokkos lands on either side of 1.
The rest is 'slower', listed one by one.

Rows of the strategies that run Kokkos' own forms (`kokkos`: Kokkos' parallel_for / parallel_reduce; `team`:
a TeamPolicy reduction) are ksync's copies of the baseline, there to be compared, not replacements for it:
they are left out."""

import re

from ksync_tools.tables import markdown_table

# (what the rows are, a portable family, the family of its Kokkos counterpart): the counterpart's name is the
# template filled with the pattern's named groups. Each pattern matches the family (the row name without its
# size) whole; the counterparts themselves are left out by the negative lookaheads, Kokkos' own forms by
# KOKKOS_OWN.
PAIRS = [
    ("CG, built-in operator", r"portable/cg/(?!kokkos_host_scalars/)(?:pipelined/)?[a-z_]+/double",
     "portable/cg/kokkos_host_scalars/double"),
    ("CG, CSR matrices",
     r"portable/cg_csr/(?P<matrix>[^/]+)/(?P<jacobi>jacobi/)?(?:pipelined/)?(?!kokkos_host_scalars/|kokkos_kernels_host_scalars/)[a-z_]+/double",
     "portable/cg_csr/{matrix}/{jacobi}kokkos_host_scalars/double"),
    ("reductions", r"portable/(?P<op>reduce|reduce_latency)/(?P<kind>[a-z]+)/(?P<type>[a-z0-9]+)/(?!kokkos$)[a-z_-]+",
     "portable/{op}/{kind}/{type}/kokkos"),
    ("dot", r"portable/dot/(?P<type>[a-z0-9]+)/(?!kokkos$)[a-z_-]+", "portable/dot/{type}/kokkos"),
    ("transform", r"portable/transform/(?P<type>[a-z0-9]+)/[a-z_-]+", "kokkos/transform/{type}/range_policy"),
    ("STREAM kernels", r"portable/stream/(?P<kernel>[a-z]+)/(?P<type>[a-z0-9]+)/[a-z_-]+",
     "kokkos/stream/{kernel}/{type}/range_policy"),
    ("blocking round trip", r"portable/round_trip/ksync/(?P<type>[a-z0-9]+)", "portable/round_trip/kokkos/{type}"),
    ("Jacobi iteration", r"portable/jacobi/[a-z_]+/(?P<type>[a-z0-9]+)", "kokkos/jacobi/range_policy/{type}"),
]

# The last name part of a row run by Kokkos' own form, through ksync (the reductions' and the index
# functors' `kokkos` and `team` strategies, and the stream Dot through ksync::reduce with them).
KOKKOS_OWN = {"kokkos", "team", "reduce-kokkos", "reduce-team"}

# Kokkos' own form on host backends only: the index functors' `batched` calls Kokkos' RangePolicy over the
# functor itself there (src/ksync/detail/parallel/batched.hpp), the very loop of its counterpart.
KOKKOS_OWN_ON_HOST = {"batched"}

# The Kokkos execution spaces that run on the host, as a suite's context names them.
HOST_BACKENDS = {"Serial", "OpenMP", "Threads", "HPX"}


def pairs(rows, host_backend=False):
    """[(group, row name, counterpart name, row, counterpart row)] of every portable row with a counterpart
    of the same size in `rows`, in the run's order. host_backend: the portable suite ran on the CPU."""
    own = KOKKOS_OWN | (KOKKOS_OWN_ON_HOST if host_backend else set())
    found = []
    for name, row in rows.items():
        family, _, size = name.rpartition("/")
        if not size.isdigit() or family.rpartition("/")[2] in own:
            continue
        for group, pattern, template in PAIRS:
            match = re.fullmatch(pattern, family)
            if not match:
                continue
            groups = {key: value or "" for key, value in match.groupdict().items()}
            other = f"{template.format(**groups)}/{size}"
            if other in rows:
                found.append((group, name, other, row, rows[other]))
            break
    return found


def verdict(row, counterpart):
    """(counterpart median / row median, 'faster', 'within noise' or 'slower')."""
    ratio = counterpart["median"] / row["median"]
    if ratio >= 1:
        return ratio, "faster"
    return ratio, "within noise" if min(row["samples"]) <= max(counterpart["samples"]) else "slower"


def section(rows, out, backend=""):
    """Appends the section to `out` (nothing without pairs); returns {group: [(row name, ratio, verdict)]}.
    backend: the Kokkos execution space the portable suite ran on (its context's kokkos_execution_space)."""
    host_backend = backend in HOST_BACKENDS
    found = pairs(rows, host_backend)
    if not found:
        return {}
    by_group = {}
    for group, name, other, row, counterpart in found:
        ratio, said = verdict(row, counterpart)
        by_group.setdefault(group, []).append((name, other, ratio, said))
    out.append("## The portable half against plain Kokkos\n")
    out.append("Each portable row against the plain Kokkos code it replaces, same run and size: the Kokkos row's "
               "median over the portable row's (≥ 1: ksync at least as fast). A ratio under 1 is *within noise* "
               "where the two rows' repetitions overlap (the portable row's fastest is no slower than the Kokkos "
               "row's slowest), *slower* otherwise. The counterparts: the Kokkos CG as its users write it "
               "(kokkos_host_scalars; the Jacobi PCG for the Jacobi rows), Kokkos' parallel_reduce (the "
               "reductions' `kokkos` rows) and RangePolicy index lambdas for transforms, STREAM kernels and the "
               "Jacobi iteration. Rows that run Kokkos' own forms through ksync (strategies `kokkos`, `team`) are "
               "left out: they are the baseline" +
               (f"; on {backend}, a host backend, the index functors' `batched` too, which runs Kokkos' "
                "RangePolicy over the functor there (so the copy, mul, add and triad rows have no pair)"
                if host_backend else "") + ".\n")
    lines = []
    for group, measured in by_group.items():
        counts = {said: sum(1 for *_, s in measured if s == said) for said in ("faster", "within noise", "slower")}
        lowest = min(measured, key=lambda item: item[2])
        lines.append([group, str(len(measured)), str(counts["faster"]), str(counts["within noise"]),
                      str(counts["slower"]), f"{lowest[2]:.2f} ({lowest[0]})",
                      f"{sorted(item[2] for item in measured)[len(measured) // 2]:.2f}"])
    out.extend(markdown_table(["rows", "pairs", "≥ 1", "within noise", "slower", "lowest (row)", "median"],
                              "lrrrrlr", lines))
    out.append("")
    slower = [(name, other, ratio) for measured in by_group.values() for name, other, ratio, said in measured
              if said == "slower"]
    if slower:
        out.append("Slower than their Kokkos counterpart beyond the noise:\n")
        out.extend(markdown_table(["row", "counterpart", "ratio"], "llr",
                                  [[name, other, f"{ratio:.2f}"] for name, other, ratio in slower]))
    else:
        out.append("No portable row is slower than its Kokkos counterpart beyond the noise.")
    out.append("")
    return {group: [(name, ratio, said) for name, _, ratio, said in measured] for group, measured in by_group.items()}
