# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The report's section on index functors: BabelStream's kernels written as index functors
(bench/stream_kernels.hpp), GB/s per kernel, type and n for Kokkos' RangePolicy, the hand-written CUDA
kernel, the best portable and the best native ksync strategy, beside the device copy of the same run
(docs/index-functors.md)."""

from ksync_tools.results import sized
from ksync_tools.tables import markdown_table, power

KERNELS = ("copy", "mul", "add", "triad")


def best(rows, source, kernel, value_type, n):
    """(GB/s, strategy) of the fastest `source` row (portable, native) of this kernel at n, or (None, '')."""
    prefix = f"{source}/stream/{kernel}/{value_type}/"
    found = [(row["rate"], name[len(prefix):].rpartition("/")[0]) for name, row in rows.items()
             if name.startswith(prefix) and name.endswith(f"/{n}")]
    rate, strategy = max(found, default=(None, ""))
    return (rate / 1e9 if rate else None), strategy


def rate_at(rows, family, n):
    row = sized(rows, family).get(n)
    return row["rate"] / 1e9 if row and row["rate"] else None


def section(rows, out):
    """Appends the section when the run has stream rows; returns {(kernel, type): {n: portable / Kokkos}}."""
    if not any("/stream/" in name for name in rows):
        return {}
    out.append("## Index functors: BabelStream's kernels (docs/index-functors.md)\n")
    out.append("GB/s (median); Copy and Mul move 2 arrays per index, Add and Triad 3. Best portable and best "
               "native: the fastest strategy of each half at that n (named). The device copy is the native "
               "suite's float copy (without one, as on CPU backends, the portable suite's); where the data fits in "
               "a cache (2^22 elements and below in an H200's L2) kernels can pass it.\n")
    header = ["kernel", "type", "n", "device copy", "hand-written CUDA", "Kokkos RangePolicy", "best portable",
              "best native", "portable / Kokkos", "native / hand-written"]
    lines = []
    ratios = {}

    def ratio(a, b):
        return f"{a / b:.2f}" if a and b else "—"

    def gbs(value, strategy=""):
        return "—" if value is None else f"{value:.0f}" + (f" ({strategy})" if strategy else "")

    for value_type in ("float", "double"):
        for kernel in KERNELS:
            kokkos = sized(rows, f"kokkos/stream/{kernel}/{value_type}/range_policy")
            for n in sorted(kokkos):
                copy = rate_at(rows, "native/device_copy/float", n) or rate_at(rows, "portable/device_copy/float", n)
                hand = rate_at(rows, f"cuda/stream/{kernel}/{value_type}/hand_written", n)
                baseline = kokkos[n]["rate"] / 1e9 if kokkos[n]["rate"] else None
                portable, portable_strategy = best(rows, "portable", kernel, value_type, n)
                native, native_strategy = best(rows, "native", kernel, value_type, n)
                ratios.setdefault((kernel, value_type), {})[n] = portable / baseline if portable and baseline else None
                lines.append([kernel, value_type, power(n), gbs(copy), gbs(hand), gbs(baseline),
                              gbs(portable, portable_strategy), gbs(native, native_strategy),
                              ratio(portable, baseline), ratio(native, hand)])
    out.extend(markdown_table(header, "llrrrrrrrr", lines))
    out.append("")
    lines = []
    for value_type in ("float", "double"):
        kokkos = sized(rows, f"kokkos/stream/dot/{value_type}/range_policy")
        for n in sorted(kokkos):
            hand = rate_at(rows, f"cuda/stream/dot/{value_type}/hand_written", n)
            cub = rate_at(rows, f"cub/stream/dot/{value_type}", n)
            portable, strategy = best(rows, "portable", "dot", value_type, n)
            native, native_strategy = best(rows, "native", "dot", value_type, n)
            vendor = max((v for v in (hand, cub) if v), default=None)
            lines.append(["dot", value_type, power(n), gbs(hand), gbs(cub), gbs(kokkos[n]["rate"] / 1e9),
                          gbs(portable, strategy), gbs(native, native_strategy), ratio(portable, vendor),
                          ratio(native, vendor)])
    out.append("Dot (Σ a b, 2 arrays read): the hand-written kernel, CUB over the products, Kokkos' "
               "parallel_reduce, the best portable strategy (an index strategy, or reduce-<strategy>: "
               "ksync::parallel_reduce with a reduce_strategy) and the best native one "
               "(ksync::cuda::parallel_reduce), each over the faster of the first two.\n")
    out.extend(markdown_table(["kernel", "type", "n", "hand-written CUDA", "CUB", "Kokkos RangePolicy",
                               "best portable", "best native", "portable / faster of the two",
                               "native / faster of the two"], "llrrrrrrrr", lines))
    out.append("")
    copies = sized(rows, "native/device_copy/float") or sized(rows, "portable/device_copy/float")
    copy = {n: 8 * n / row["median"] for n, row in copies.items() if row["median"]}
    return {"stream": ratios, "stream_rows": {kernel: (plot_series(rows, kernel), copy) for kernel in ("copy", "dot")}}


def plot_series(rows, kernel, value_type="float"):
    """{label: sized rows} of every float series of `kernel` for the report's index-functor plots: the
    baselines (Kokkos' RangePolicy, the hand-written kernel, CUB for dot), each strategy of each half, and of
    the rows through the bridge only reduce-last_block (the others run the native rows' kernels again);
    `automatic` is left out, as it runs one of the others."""
    series = {"Kokkos RangePolicy": sized(rows, f"kokkos/stream/{kernel}/{value_type}/range_policy"),
              "hand-written CUDA": sized(rows, f"cuda/stream/{kernel}/{value_type}/hand_written")}
    if kernel == "dot":
        series["CUB"] = sized(rows, f"cub/stream/dot/{value_type}")
    for source, label in (("portable", "portable"), ("native", "native"), ("bridge", "portable bridge")):
        prefix = f"{source}/stream/{kernel}/{value_type}/"
        strategies = sorted({name[len(prefix):].split("/")[0] for name in rows if name.startswith(prefix)})
        for strategy in strategies:
            if strategy == "automatic" or (source == "bridge" and strategy != "reduce-last_block"):
                continue
            series[f"{label} {strategy}"] = sized(rows, prefix + strategy)
    return {label: table for label, table in series.items() if table}
