/* tslint:disable */
/* eslint-disable */
export const memory: WebAssembly.Memory;
export const __wbg_dequantizer_free: (a: number, b: number) => void;
export const __wbg_tensorvalues_free: (a: number, b: number) => void;
export const dequantizer_blockBytes: (a: number) => number;
export const dequantizer_decode: (a: number, b: number, c: number) => [number, number, number];
export const dequantizer_new: (a: number, b: number) => [number, number, number];
export const dequantizer_values: (a: number) => [number, number];
export const tensorvalues_feed: (a: number, b: number, c: number) => [number, number];
export const tensorvalues_finish: (a: number) => [number, number, number];
export const tensorvalues_new: (a: any, b: number, c: number) => [number, number, number];
export const tensorvalues_nextRead: (a: number) => [number, number, number];
export const __wbindgen_exn_store: (a: number) => void;
export const __externref_table_alloc: () => number;
export const __wbindgen_externrefs: WebAssembly.Table;
export const __wbindgen_malloc: (a: number, b: number) => number;
export const __wbindgen_free: (a: number, b: number, c: number) => void;
export const __externref_table_dealloc: (a: number) => void;
export const __wbindgen_start: () => void;
