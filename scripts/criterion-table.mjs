#!/usr/bin/env node
// The last results of criterion benches as a Markdown table: every benchmark of the named groups,
// read from target/criterion (each benchmark's benchmark.json and new/estimates.json), with its
// median and, where the bench declares a throughput in bytes, the rate. Run it after the bench:
//
//   cargo bench -p gguf-core --bench parse
//   node scripts/criterion-table.mjs parse vocab-262k.gguf ggml-vocab-command-r.gguf [--write-docs]
//
// BLOCK names the table: with --write-docs it is written into docs/performance.md's generated
// block bench:BLOCK (scripts/docs-blocks.mjs). A group with no results stops it.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { REPO, markdownTable, writeBlock } from './docs-blocks.mjs';

/** Every benchmark criterion has results for under `dir`: `{group, name, median_ns, bytes, measured}`. */
export function criterionResults(dir = path.join(REPO, 'target/criterion')) {
  const out = [];
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === 'report') continue;
      const here = path.join(at, entry.name);
      const bench = path.join(here, 'new/benchmark.json');
      if (entry.name !== 'new' && existsSync(bench)) {
        const info = JSON.parse(readFileSync(bench, 'utf8'));
        const file = path.join(here, 'new/estimates.json');
        const estimates = JSON.parse(readFileSync(file, 'utf8'));
        const name = [info.function_id, info.value_str].filter(Boolean).join(' ');
        out.push({
          group: info.group_id,
          name,
          median_ns: estimates.median.point_estimate,
          bytes: info.throughput?.Bytes ?? null,
          measured: statSync(file).mtime,
        });
      } else if (entry.name !== 'new' && entry.name !== 'base' && entry.name !== 'change') {
        walk(here);
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** A duration in ns, in the unit that reads best. */
function duration(ns) {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  return `${(ns / 1e3).toFixed(1)} µs`;
}

/** The table of the results of `groups`, in the order given, each group's benchmarks by name. */
export function criterionTable(results, groups) {
  const rows = [];
  for (const group of groups) {
    const mine = results.filter((r) => r.group === group).sort((a, b) => a.name.localeCompare(b.name));
    if (!mine.length)
      throw new Error(`no criterion results for the group "${group}" in target/criterion: run its bench first`);
    for (const r of mine) {
      rows.push({
        group,
        benchmark: r.name,
        median: duration(r.median_ns),
        rate: r.bytes ? `${(r.bytes / (r.median_ns / 1e9) / 2 ** 30).toFixed(2)} GiB/s` : '',
      });
    }
  }
  return markdownTable(rows);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const write = args.includes('--write-docs');
  const [block, ...groups] = args.filter((a) => a !== '--write-docs');
  if (!block || !groups.length) {
    console.error('usage: node scripts/criterion-table.mjs BLOCK GROUP... [--write-docs]');
    process.exit(2);
  }
  const results = criterionResults().filter((r) => groups.includes(r.group));
  const table = criterionTable(results, groups);
  const when = new Date(Math.max(...results.map((r) => r.measured))).toISOString().slice(0, 10);
  const text = `Measured ${when} on ${cpus().length} × ${cpus()[0].model.trim()}; criterion medians.\n\n${table}`;
  console.log(text);
  if (write) writeBlock('docs/performance.md', `bench:${block}`, text);
}
