# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints, from the Google Benchmark JSON files given (the native and the portable suite of one run), the
grid- and cluster-scope synchronization tables of docs/synchronization.md as Markdown:
  1. the barrier-cost table: every */barrier/* row, cost per barrier;
  2. the persistent iterative workload: µs per Jacobi phase for every form and phase size, relaunch over the
     persistent grid.sync kernel, the Kokkos graph over the CUDA graph, and the crossover: the smallest
     phase size from which a launch per phase costs at most 10 % more than the same kernels replayed from
     a CUDA graph (launch cost no longer matters), at that size and every larger one;
  3. the synchronization targets, each with its measured value and whether it holds.
usage: sync-tables FILE.json [FILE.json ...]"""

import sys

from ksync_tools.results import run_entries
from ksync_tools.tables import markdown_table


def barrier_rows(all_entries):
    rows = []
    for entry in all_entries:
        name = entry["run_name"].removesuffix("/manual_time")
        if "/barrier/" not in name:
            continue
        if entry.get("error_occurred"):
            rows.append((name, None, entry.get("error_message", "error")))
            continue
        rows.append((name, entry["seconds_per_barrier"] * 1e9, entry))
    return rows


def is_jacobi_iteration_row(name):
    parts = name.split("/")
    return len(parts) > 1 and parts[1] == "jacobi"


def jacobi_table(all_entries):
    table = {}  # form -> {n: seconds per phase}
    for entry in all_entries:
        name = entry["run_name"].removesuffix("/manual_time")
        # The Jacobi iteration's rows are <half>/jacobi/...; the sparse CG rows' Jacobi preconditioner
        # (.../cg_csr/<matrix>/jacobi/...) is another thing.
        if not is_jacobi_iteration_row(name) or entry.get("error_occurred"):
            continue
        form, _, size = name.rpartition("/")
        form = form.removesuffix("/float").split("/jacobi/")[1]
        table.setdefault(form, {})[int(size)] = entry["seconds_per_phase"]
    return table


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    all_entries = list(run_entries(sys.argv[1:]))
    barriers = barrier_rows(all_entries)
    cost = {}
    lines = []
    for name, nanoseconds, entry in barriers:
        if nanoseconds is None:
            lines.append([name, f"not run: {entry}", ""])
            continue
        cost[name] = nanoseconds
        shape = ""
        if "blocks" in entry:
            shape = f"{int(entry['blocks'])} x {int(entry['block_size'])}"
        elif "teams" in entry:
            shape = f"{int(entry['teams'])} x {int(entry['team_size'])} (teams)"
        lines.append([name, f"{nanoseconds:,.1f} ns", shape])
    print("\n".join(markdown_table(["barrier", "cost per barrier", "blocks x threads"], "lrr", lines)))

    table = jacobi_table(all_entries)
    if not table:
        return
    forms = sorted(table)
    sizes = sorted({n for values in table.values() for n in values})
    print()
    header = ["n", *forms, "relaunch / grid.sync", "Kokkos graph / CUDA graph"]
    lines = []
    persistent = "persistent_grid_sync/1_block_per_sm"
    crossover = None
    for n in sizes:
        cells = [f"{table[form][n] * 1e6:.2f}" if n in table[form] else "" for form in forms]
        relaunch = table.get("launch_per_phase", {}).get(n)
        grid = table.get(persistent, {}).get(n)
        kokkos_graph = table.get("kokkos_graph", {}).get(n)
        cuda_graph = table.get("cuda_graph", {}).get(n)
        ratio = f"{relaunch / grid:.2f}" if relaunch and grid else ""
        graphs = f"{kokkos_graph / cuda_graph:.2f}" if kokkos_graph and cuda_graph else ""
        lines.append([f"2^{n.bit_length() - 1}", *cells, ratio, graphs])
        if relaunch and cuda_graph and relaunch <= 1.10 * cuda_graph:
            crossover = crossover or n
        elif relaunch and cuda_graph:
            crossover = None  # launch cost matters again at a larger size: the crossover lies beyond it
    print("\n".join(markdown_table(header, "r" * len(header), lines)))
    print()
    print("µs per phase (one call of all phases, launch included, over the phases).")
    if crossover:
        print(f"Crossover: from n = 2^{crossover.bit_length() - 1} on, a launch per phase costs at most 1.10x "
              "the same kernels replayed from a CUDA graph.")
    else:
        print("Crossover: a launch per phase costs more than 1.10x the CUDA graph at every size measured.")

    smallest = sizes[0]
    print()
    targets = []
    grid_phase = table.get(persistent, {}).get(smallest)
    for shape in (persistent, persistent + "_1024", persistent + "_4_sweeps", persistent + "_16_sweeps"):
        phase = table.get(shape, {}).get(smallest)
        if phase:
            targets.append([f"persistent grid.sync phase <= 1.0 µs at 1 block/SM ({shape}, n = "
                            f"2^{smallest.bit_length() - 1})", f"{phase * 1e6:.2f} µs",
                            "yes" if phase <= 1.0e-6 else "no"])
    relaunch = table.get("launch_per_phase", {}).get(smallest)
    if grid_phase and relaunch:
        targets.append([f"relaunch / persistent grid.sync >= 3 at n = 2^{smallest.bit_length() - 1}",
                        f"{relaunch / grid_phase:.2f}", "yes" if relaunch >= 3 * grid_phase else "no"])
    kokkos_node = cost.get("portable/barrier/kokkos_graph_node")
    cuda_node = cost.get("native/barrier/cuda_graph_node")
    if kokkos_node and cuda_node:
        targets.append(["Kokkos::Graph node <= 1.5x CUDA-graph node (empty kernels)", f"{kokkos_node / cuda_node:.2f}",
                        "yes" if kokkos_node <= 1.5 * cuda_node else "no"])
    kokkos_graph = table.get("kokkos_graph", {}).get(smallest)
    cuda_graph = table.get("cuda_graph", {}).get(smallest)
    if kokkos_graph and cuda_graph:
        targets.append([f"Kokkos::Graph phase <= 1.5x CUDA-graph phase (Jacobi, n = 2^{smallest.bit_length() - 1})",
                        f"{kokkos_graph / cuda_graph:.2f}", "yes" if kokkos_graph <= 1.5 * cuda_graph else "no"])
    print("\n".join(markdown_table(["target", "measured", "holds"], "lrl", targets)))


if __name__ == "__main__":
    main()
