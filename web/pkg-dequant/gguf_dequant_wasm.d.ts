/* tslint:disable */
/* eslint-disable */

/** A float, or "nan", "inf", "-inf". */
export type Float = number | "nan" | "inf" | "-inf";
/** The values of a tensor (`ggufscope tensor --json`'s `stats`); counts are BigInt. */
export interface TensorStats {
    count: bigint; nan: bigint; pos_inf: bigint; neg_inf: bigint; zeros: bigint; all_zero: boolean;
    min: Float | null; max: Float | null; mean: Float | null; variance: Float | null; std_dev: Float | null;
    first: Float[];
    histogram: { min: Float; max: Float; counts: bigint[] };
}
/** The first rows of a tensor, as `GgufModel.tensorPrefix` gives them. */
export interface ValuesPrefix { offset: number; length: number; rows: number; elements: number; typeId: number; bigEndian: boolean }



/** Bytes to read next: `length` bytes from `offset`. */
export interface ReadRange { offset: number; length: number }
/**
 * An error, in the one shape of every ggufscope error (the CLI's `validate --json` too): a stable
 * `code` (README, "Errors": `not-gguf`, `truncated`, `read-failed`, …), what went wrong and in
 * which key or tensor, the absolute byte offset (null when no place is known), and the part of
 * the header being read (null outside the decoder).
 */
export interface ParseError {
    code: string;
    message: string;
    offset: number | null;
    context:
    | { section: "header" }
    | { section: "kv"; index: number; key: string | null; element: number | null }
    | { section: "tensor"; index: number; name: string | null }
    | null;
}



/**
 * The dequantizers alone: blocks of one type decoded into values, with no statistics — what the
 * SIMD and fallback builds are compared and timed with.
 */
export class Dequantizer {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Decodes `bytes` (whole blocks) in place of the last call's values; returns their count.
     */
    decode(bytes: Uint8Array | number[]): number;
    /**
     * A decoder of type `typeId`'s blocks, in a big- or little-endian file's byte order. Throws
     * for a type that cannot be decoded (an id ggml never assigned, or one it removed).
     */
    constructor(typeId: number, bigEndian: boolean);
    /**
     * The last `decode`'s values (a copy).
     */
    values(): Float32Array;
    /**
     * Bytes per block: what `decode` takes a whole number of.
     */
    readonly blockBytes: number;
}

/**
 * The values of one tensor, or of its first rows, being measured.
 */
export class TensorValues {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Feeds the bytes of the last `nextRead()`.
     */
    feed(bytes: Uint8Array | number[]): void;
    /**
     * The statistics (`ggufscope tensor --json`'s `stats`), of what was fed; frees this object.
     */
    finish(): TensorStats;
    /**
     * Measures `prefix` (from `GgufModel.tensorPrefix`) into a histogram of `bins` bins,
     * keeping the first `first` values. Throws for a type that cannot be decoded (an id ggml
     * never assigned, or one it removed).
     */
    constructor(prefix: ValuesPrefix, bins: number, first: number);
    /**
     * The bytes to read and feed next, `{ offset, length }`, or `null` when done.
     */
    nextRead(): ReadRange | null;
}

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly __wbg_dequantizer_free: (a: number, b: number) => void;
    readonly __wbg_tensorvalues_free: (a: number, b: number) => void;
    readonly dequantizer_blockBytes: (a: number) => number;
    readonly dequantizer_decode: (a: number, b: number, c: number) => [number, number, number];
    readonly dequantizer_new: (a: number, b: number) => [number, number, number];
    readonly dequantizer_values: (a: number) => [number, number];
    readonly tensorvalues_feed: (a: number, b: number, c: number) => [number, number];
    readonly tensorvalues_finish: (a: number) => [number, number, number];
    readonly tensorvalues_new: (a: any, b: number, c: number) => [number, number, number];
    readonly tensorvalues_nextRead: (a: number) => [number, number, number];
    readonly __wbindgen_exn_store: (a: number) => void;
    readonly __externref_table_alloc: () => number;
    readonly __wbindgen_externrefs: WebAssembly.Table;
    readonly __wbindgen_malloc: (a: number, b: number) => number;
    readonly __wbindgen_free: (a: number, b: number, c: number) => void;
    readonly __externref_table_dealloc: (a: number) => void;
    readonly __wbindgen_start: () => void;
}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/**
 * Instantiates the given `module`, which can either be bytes or
 * a precompiled `WebAssembly.Module`.
 *
 * @param {{ module: SyncInitInput }} module - Passing `SyncInitInput` directly is deprecated.
 *
 * @returns {InitOutput}
 */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * If `module_or_path` is {RequestInfo} or {URL}, makes a request and
 * for everything else, calls `WebAssembly.instantiate` directly.
 *
 * @param {{ module_or_path: InitInput | Promise<InitInput> }} module_or_path - Passing `InitInput` directly is deprecated.
 *
 * @returns {Promise<InitOutput>}
 */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
