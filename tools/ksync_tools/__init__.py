# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ksync's Python tools, one package: each command of tools/ (report-md, compare-runs, readme-headline,
fingerprint, sync-tables, pipeline-tables, timeline-png) is a thin entry point that imports its module here.
Shared: results (the one reader of the benchmark JSON and the one median every figure is), tables (the one
Markdown table writer), source_tree (the tree hash a run is attributed by)."""
