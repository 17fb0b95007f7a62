# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The one Markdown table writer of the tools (a header row, the alignment row, one row per list of cells) and
how tables and plot notes print a size."""


def markdown_table(header, align, rows):
    """The lines of a table: `header` (cell strings), `align` (one letter a column: 'l' left, 'r' right) and
    `rows` (lists of cell strings, as many as the header)."""
    if len(align) != len(header):
        raise ValueError(f"markdown_table: {len(header)} header cells but {len(align)} alignments")
    lines = ["| " + " | ".join(header) + " |", "|" + "".join("---:|" if a == "r" else "---|" for a in align)]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"markdown_table: a row of {len(row)} cells under {len(header)} headers: {row}")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def power(n):
    """2^k for a power of two, else the number as it is."""
    return f"2^{n.bit_length() - 1}" if isinstance(n, int) and n > 0 and n & (n - 1) == 0 else str(n)
