// Declarations of web/gguf.js, the package's main entry (`import { open } from 'ggufscope'`).
// The report's type is generated from its JSON Schema (report.d.ts, scripts/report-types.mjs);
// the functions' signatures are written here, from their JSDoc in web/*.js.

import type { Report } from './report.js';

export type { Report } from './report.js';

/** Where in the header a {@link ParseError} happened. */
export type ErrorContext =
  | { section: 'header' }
  | { section: 'kv'; index: number; key: string | null; element: number | null }
  | { section: 'tensor'; index: number; name: string | null };

/**
 * A file that cannot be read or decoded: what went wrong and where (a plain object, not an Error).
 * The one shape of every ggufscope error, which an HttpError or a ParserFailure has too.
 */
export interface ParseError {
  /** Stable code (docs/json.md, "Errors"): `not-gguf`, `truncated`, … for a malformed file; `not-found`, `cors`, … for one that cannot be read. */
  code: string;
  /** What went wrong, in which key or tensor (no offset). */
  message: string;
  /** Absolute byte offset in the file; null when unknown. */
  offset: number | null;
  /** The part of the header being read. */
  context: ErrorContext | null;
}

/** How a header was read (`open()`'s `onProgress`). */
export interface ReadStats {
  bytesRead: number;
  reads: number;
  fileSize: number;
  notes?: string[];
}

/** A File or Blob, or anything with a size whose slices give their bytes, as the read loop takes. */
export type BlobLike =
  Blob | { size: number; name?: string; slice(start: number, end: number): { arrayBuffer(): Promise<ArrayBuffer> } };

/** A model: a File or Blob, the shards of a split model, or a URL (relative to the page). */
export type ModelSource = Blob | Blob[] | string | URL;

/**
 * Reads the header of a File or Blob, of several (the shards of a split model, as one model), or
 * of a URL (one shard's URL brings its siblings), in a Web Worker of its own. Resolves the report,
 * the document `ggufscope info --json` prints; rejects with a {@link ParseError} when the model
 * cannot be read, or a ParserFailure (an Error with `code` 'stalled', 'out-of-memory' or
 * 'crashed') when reading it made the parser fail.
 */
export function open(fileOrUrl: ModelSource, options?: { onProgress?: (stats: ReadStats) => void }): Promise<Report>;

/**
 * llama-server's options that size its buffers, named as llama.cpp's; each absent for its default.
 * `ctx` is `-c` (tokens for all sequences together; 0: the model's trained context), `ctk`/`ctv`
 * `-ctk`/`-ctv`, `flashAttn` `-fa`, `parallel` `-np` (absent: auto, 4 sharing one cache),
 * `ubatch` `-ub`, `kvUnified` `--kv-unified`.
 */
export interface FitOptions {
  ctx?: number | bigint;
  ctk?: CacheType;
  ctv?: CacheType;
  flashAttn?: 'on' | 'off' | 'auto';
  parallel?: number;
  ubatch?: number;
  kvUnified?: boolean;
}

/** What `-ctk`/`-ctv` take. */
export type CacheType = 'f32' | 'f16' | 'bf16' | 'q8_0' | 'q4_0' | 'q4_1' | 'iq4_nl' | 'q5_0' | 'q5_1';

/** A figure the header does not fix: the likeliest bytes, and the bounds. */
export interface ByteRange {
  bytes: number | bigint;
  low: number | bigint;
  high: number | bigint;
}

/** One KV cache: the global one, or the sliding-window layers'. */
export interface KvCacheGroup {
  sliding: boolean;
  layers: number;
  cells: number;
  streams: number;
  type_k: CacheType;
  type_v: CacheType;
  k_bytes: number | bigint;
  v_bytes: number | bigint;
}

/** The buffers llama.cpp allocates, in bytes: the `memory` of `ggufscope info --json`. */
export interface MemoryDocument {
  options: {
    ctx: number | bigint;
    parallel: number | null;
    kv_unified: boolean;
    type_k: CacheType;
    type_v: CacheType;
    flash_attn: 'on' | 'off' | 'auto';
    ubatch: number;
    batch: number;
  };
  context: {
    n_ctx: number;
    n_ctx_seq: number;
    n_seq: number;
    kv_unified: boolean;
    flash_attn: boolean;
    n_batch: number;
    n_ubatch: number;
    n_ctx_train: number | bigint;
  };
  kind: 'kv_cache' | 'recurrent' | 'hybrid' | 'none';
  model: number | bigint;
  kv_cache: number | bigint;
  kv_k: number | bigint;
  kv_v: number | bigint;
  recurrent: number | bigint;
  output: number | bigint;
  compute: number | bigint;
  total: number | bigint;
  model_range: ByteRange;
  compute_range: ByteRange;
  total_range: ByteRange;
  groups: KvCacheGroup[];
  recurrent_state: {
    layers: number;
    cells: number;
    r_values: number | bigint;
    s_values: number | bigint;
    r_bytes: number | bigint;
    s_bytes: number | bigint;
  } | null;
}

/**
 * The buffers llama.cpp allocates to run a model (a File, Blob, shards or URL, or a report
 * {@link open} resolved) with llama-server's options: the same document as `ggufscope info --json`'s
 * `memory`. Rejects as `open()` does, and with `{code: 'invalid-request', message}` for options
 * llama.cpp refuses.
 */
export function fit(fileOrReport: ModelSource | Report, options?: FitOptions): Promise<MemoryDocument>;

/** A type name as the report gives it (`UINT32`, `STRING`, …; the CLI's `u32`, `str` too), or an array's. */
export type EditType = string | { type: 'ARRAY'; element_type: string };
export type EditValue = number | bigint | boolean | string;

/** One edit: `{set: KEY, value, type?}` or `{delete: KEY}`, applied in order. */
export type Edit =
  { set: string; value: EditValue | EditValue[]; type?: EditType; element_type?: string } | { delete: string };

/** A refused edit (`edit()`'s rejection): `code` the core's stable id (`no-such-key`, `bad-value`, …). */
export interface EditError {
  code: string;
  key: string;
  message: string;
}

/** One change made: `ggufscope edit --json`'s `changes[]`. */
export interface Change {
  key: string;
  action: 'set' | 'add' | 'delete';
  type: string;
  old: unknown;
  new: unknown;
}

/** What an edit made: the new file, the changes, and the sizes before and after. */
export interface Edited {
  file: Blob;
  changes: Change[];
  header_size: { before: number; after: number };
  data_offset: { before: number; after: number };
  file_size: { before: number; after: number };
  read: { bytesRead: number; reads: number };
}

/** A finding the result of edits would have (as the report's findings). */
export interface EditFinding {
  code: string;
  severity: string;
  message: string;
  key: string | null;
}

/** What an edit session's `check` finds: every refused edit, the findings the result would add, and the edits that set a value to what it already is. */
export interface Checked {
  refusals: (EditError & { index: number })[];
  findings: EditFinding[];
  unchanged: number[];
}

/** A header decoded once, to check edits against as they are made; `free()` when done. */
export interface EditSession {
  check(edits: Edit[]): Promise<Checked>;
  checkTemplate(key: string, text: string): Promise<EditFinding[]>;
  text(key: string): Promise<string | undefined>;
  free(): void;
}

/** A copy of `file` with its metadata changed, as a Blob (the tensor data is sliced, never read). */
export function edit(file: BlobLike, edits: Edit[]): Promise<Blob>;
/** {@link edit}, resolving the changes made and the sizes too. */
export function editWithChanges(file: BlobLike, edits: Edit[]): Promise<Edited>;
/** Decodes `file`'s header once and resolves a session to check edits against. */
export function editSession(file: BlobLike): Promise<EditSession>;

/**
 * The document `ggufscope diff --json` prints (`{a, b, same, differences, summary, metadata,
 * tensors}`, and `values`, `layers` when measured). Not generated from a schema yet: its fields are
 * described in docs/json.md (The diff document).
 */
export type DiffDocument = { same: boolean; differences: number } & Record<string, any>;

/** Progress of a measure: before each tensor and after each read. */
export interface MeasureProgress {
  pairs: number;
  done: number;
  name: string;
  bytesRead: number;
  bytesTotal: number;
}

/** A pair of tensors whose values can be compared. */
export interface TensorPair {
  name: string;
  type_a: string;
  type_b: string;
  n: number;
  shard_a: string;
  shard_b: string;
  bytes_a: number;
  bytes_b: number;
}

/** What differs between two models' headers, resolved with `values` by the error of B's values against A's. */
export function compare(
  a: ModelSource,
  b: ModelSource,
  options?: {
    names?: [string, string];
    values?: boolean | string[];
    signal?: AbortSignal;
    onProgress?: (progress: MeasureProgress) => void;
  },
): Promise<DiffDocument>;

/** Two models read and compared, their tensor values measured on demand; `close()` when done. */
export class Comparison {
  private constructor();
  static open(a: ModelSource, b: ModelSource, options?: { names?: [string, string] }): Promise<Comparison>;
  readonly pairs: TensorPair[];
  document(options?: { values?: boolean }): DiffDocument;
  measure(
    values: true | string[],
    options?: { signal?: AbortSignal; onProgress?: (progress: MeasureProgress) => void },
  ): Promise<Pick<DiffDocument, 'values' | 'layers'>>;
  measuredValues(): Pick<DiffDocument, 'values' | 'layers'>;
  close(): void;
}

/** An upstream repository's files by name: each a text, a File or a Blob (null or absent: not there). */
export interface UpstreamFiles {
  config: string | Blob;
  tokenizerConfig?: string | Blob | null;
  generationConfig?: string | Blob | null;
  chatTemplate?: string | Blob | null;
}

/**
 * The document `ggufscope upstream --json` prints (`{file, source, checks, differences, …}`). Not
 * generated from a schema yet: its fields are described in docs/json.md (The upstream document).
 */
export type UpstreamDocument = { differences: number; checks: { field: string; status: string }[] } & Record<
  string,
  any
>;

/** The file's metadata checked against its upstream repository (a base URL, or its files). */
export function upstream(
  file: BlobLike | string | URL,
  source: string | URL | UpstreamFiles,
  options?: { fileName?: string; sourceName?: string },
): Promise<UpstreamDocument>;
/** Fetches an upstream repository's files from its base URL, as the CLI does. */
export function fetchUpstream(
  base: string | URL,
  options?: { signal?: AbortSignal },
): Promise<{ config: string; tokenizerConfig?: string; generationConfig?: string; chatTemplate?: string }>;
/** The Hugging Face repositories the report's metadata names, as base URLs, the source first. */
export function upstreamRepositories(
  metadata: { key: string; value: unknown }[],
): { key: string; repo: string; base: string }[];

/** Text's token ids and what each stands for: the document `ggufscope tokenize --json` prints. */
export interface Tokens {
  /** The token ids. */
  ids: number[];
  /** What each token stands for (special tokens as their text); a byte token's bytes that are not UTF-8 on their own are U+FFFD. */
  pieces: string[];
  /** The number of ids. */
  count: number;
  /** The text of the ids (detokenize only). */
  text?: string;
}

/** A model a GgufClient opened, as `client.opened()` resolves it: its files with the header bytes read. */
export interface OpenedModel {
  files: object[];
}

/** `text` tokenized as llama.cpp does it with the file's tokenizer (read from its header alone). */
export function tokenize(
  file: BlobLike | string | URL | OpenedModel,
  text: string,
  options?: { parseSpecial?: boolean; addSpecial?: boolean },
): Promise<Tokens>;
/** The text of token ids with the file's tokenizer, and their pieces. */
export function detokenize(
  file: BlobLike | string | URL | OpenedModel,
  ids: number[] | Uint32Array,
): Promise<Tokens & { text: string }>;
