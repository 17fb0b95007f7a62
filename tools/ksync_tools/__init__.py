# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What ksync's Python tools (tools/) share, imported as a package by each command there: results (reading
the benchmark JSON: one loader, one median), source_tree (the tree hash of tools/fingerprint), and the
table tools report-md composes (sync_tables, pipeline_tables, timeline)."""
