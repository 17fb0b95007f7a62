# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Draws a pipeline timeline (a Chrome trace written by ksync::cuda::write_chrome_trace) as a PNG: one row
per stream, one bar per step of every chunk (host-to-device copy, kernel, device-to-host copy). Needs
matplotlib (Debian: python3-matplotlib; it is on the lent GPU machine).
usage: timeline-png TRACE.json OUT.png [TITLE]"""

import json
import sys

COLOURS = {"copy_in": "#4c72b0", "kernel": "#55a868", "copy_out": "#dd8452"}
LABELS = {"copy_in": "host to device", "kernel": "kernel", "copy_out": "device to host"}


def draw(plt, trace, png, title, caption=""):
    """The timeline of the Chrome trace `trace` into `png`."""
    with open(trace) as handle:
        events = [e for e in json.load(handle)["traceEvents"] if e.get("ph") == "X"]
    streams = sorted({e["tid"] for e in events})
    figure, axes = plt.subplots(figsize=(12, 1.3 + 0.45 * len(streams)))
    for event in events:
        row = streams.index(event["tid"])
        axes.barh(row, event["dur"] / 1000.0, left=event["ts"] / 1000.0, height=0.8,
                  color=COLOURS.get(event["cat"], "grey"), edgecolor="white", linewidth=0.2)
    axes.set_yticks(range(len(streams)), [f"stream {s}" for s in streams])
    axes.invert_yaxis()
    axes.set_xlabel("ms from the run's origin event")
    axes.set_title(title)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour) for colour in COLOURS.values()]
    axes.legend(handles, LABELS.values(), loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    if caption:
        figure.text(0.01, 0.005, caption, fontsize="small", color="#444444", ha="left", va="bottom")
    figure.tight_layout(rect=(0, 0.04, 1, 1))
    figure.savefig(png, dpi=110, bbox_inches="tight")
    plt.close(figure)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    draw(plt, sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else sys.argv[1])


if __name__ == "__main__":
    main()
