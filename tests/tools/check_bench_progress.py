#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tools/ksync bench's progress lines (tools/ksync_tools/progress.py), on a suite's console output written
here with a clock that advances 10 s each time it is read (once a new row): a line when a family first appears, naming it and its place, the
rows done and the time so far, and an estimate of what is left at that pace; a family met again says nothing
until `every` seconds (here 15) have passed since the last line; repetitions, aggregates and lines that are not rows count
nothing.
usage: check_bench_progress.py TOOLS_DIR"""

import pathlib
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(sys.argv[1])))
from ksync_tools.progress import Progress  # noqa: E402

PLAN = ["portable/reduce/sum/float/kokkos/1024/manual_time", "portable/reduce/sum/float/tuned/1024/manual_time",
        "portable/cg/fused/double/64/manual_time", "portable/reduce/sum/float/kokkos/4096/manual_time",
        "portable/cg/fused/double/128/manual_time"]
CONSOLE = ["Running ksync_portable_bench", "----------------------------------------------------------",
           "portable/reduce/sum/float/kokkos/1024/manual_time        1.00 us   3.00 us   100",
           "portable/reduce/sum/float/kokkos/1024/manual_time        1.00 us   3.00 us   100",
           "portable/reduce/sum/float/kokkos/1024/manual_time_mean   1.00 us   3.00 us     2",
           "portable/reduce/sum/float/kokkos/1024/manual_time_cv     0.01 %    0.01 %      2",
           "portable/reduce/sum/float/tuned/1024/manual_time         1.00 us   3.00 us   100",
           "portable/cg/fused/double/64/manual_time                  9.00 us   9.00 us    10",
           "portable/reduce/sum/float/kokkos/4096/manual_time        1.00 us   3.00 us   100",
           "portable/cg/fused/double/128/manual_time                 9.00 us   9.00 us    10"]


def main():
    now = [0.0]

    def clock():
        now[0] += 10.0
        return now[0]

    progress = Progress(PLAN, "portable", clock, every=15.0)
    lines = [line for line in (progress.line(text + "\n") for text in CONSOLE) if line]
    lines.append(progress.finish())
    want = ["-- portable suite: family 1 of 2 begins, reduce (3 rows); 0 of 5 rows done in 10 s",
            "-- portable suite: family 2 of 2 begins, cg (2 rows); 2 of 5 rows done in 30 s; about 45 s left at the "
            "pace so far (rows differ: a rough guide)",
            "-- portable suite: now in cg; 4 of 5 rows done in 50 s; about 12 s left at the pace so far (rows differ: "
            "a rough guide)",
            "-- portable suite: 5 of 5 rows in 1 min 00 s"]
    for got, wanted in zip(lines, want):
        print(("ok:   " if got == wanted else "FAIL: ") + got)
        if got != wanted:
            print("want: " + wanted)
    if lines != want:
        print(f"FAIL: {len(lines)} lines, want {len(want)}" if len(lines) != len(want) else "FAIL")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
