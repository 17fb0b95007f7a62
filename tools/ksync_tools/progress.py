# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Progress of one benchmark suite (tools/ksync bench): passes the suite's console output through and prints
a progress line when a family of rows (reduce, stream, cg, cg_csr, ...: a row name's second part) first
appears, and at most once a minute in between: which family, the rows done of those the suite will run (its
--benchmark_list_tests output, PLAN), the time so far and about how long is left at the pace so far. Rows
differ (a CG at m = 4096 runs longer than one at 64), so the estimate is a rough guide, and says so.
usage: SUITE_BINARY ... | progress.py PLAN SUITE_NAME"""

import re
import sys
import time

# A row's console line: its name first; repetitions repeat it, aggregates add _mean, _median, _stddev, _cv.
ROW = re.compile(r"^((?:[A-Za-z0-9_.:+-]+/)+[A-Za-z0-9_.:+-]+?)(?:_mean|_median|_stddev|_cv)?\s")


def family(name):
    parts = name.split("/")
    return parts[1] if len(parts) > 1 else parts[0]


def plural(count, noun):
    return f"{count} {noun}" + ("" if count == 1 else "s")


def duration(seconds):
    minutes, seconds = divmod(int(round(seconds)), 60)
    return f"{minutes} min {seconds:02d} s" if minutes else f"{seconds} s"


class Progress:
    """Counts the rows of a plan as their lines go by; `line` returns the progress line to print, if any."""

    def __init__(self, plan, suite, clock=time.monotonic, every=60.0):
        self.plan = [name.removesuffix("/manual_time") for name in plan]
        self.suite, self.clock, self.every = suite, clock, every
        self.families = list(dict.fromkeys(family(name) for name in self.plan))
        self.start = clock()
        self.last = self.start
        self.current = None
        self.done = 0
        self.begun = set()

    def line(self, text):
        match = ROW.match(text)
        if not match:
            return None
        name = match.group(1).removesuffix("/manual_time")
        if name == self.current or name not in self.plan:
            return None
        if self.current is not None:
            self.done += 1
        self.current = name
        now = self.clock()
        if family(name) not in self.begun:
            self.begun.add(family(name))
            return self.announce(now, f"family {self.families.index(family(name)) + 1} of {len(self.families)} "
                                      f"begins, {family(name)} ({plural(self.rows_of(family(name)), 'row')})")
        if now - self.last >= self.every:
            return self.announce(now, f"now in {family(name)}")
        return None

    def rows_of(self, name):
        return sum(1 for row in self.plan if family(row) == name)

    def announce(self, now, what):
        self.last = now
        elapsed = now - self.start
        total = len(self.plan)
        text = f"-- {self.suite} suite: {what}; {self.done} of {total} rows done in {duration(elapsed)}"
        if self.done:
            left = elapsed / self.done * (total - self.done)
            text += f"; about {duration(left)} left at the pace so far (rows differ: a rough guide)"
        return text

    def finish(self):
        if self.current is not None:
            self.done += 1
        return f"-- {self.suite} suite: {self.done} of {len(self.plan)} rows in {duration(self.clock() - self.start)}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as plan_file:
        plan = [line.strip() for line in plan_file if line.strip()]
    progress = Progress(plan, sys.argv[2])
    for text in sys.stdin:
        announcement = progress.line(text)
        if announcement:
            print(announcement, flush=True)
        sys.stdout.write(text)
        sys.stdout.flush()
    print(progress.finish(), flush=True)


if __name__ == "__main__":
    main()
