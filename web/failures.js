// Which failures in the parser worker are answers for the page — the file is malformed, the
// server refuses — and which are crashes that leave the worker unusable: a trap of a wasm module
// (a Rust panic or an allocation that failed), a stack overflow, a bug. After a trap the module's
// state cannot be trusted, so the worker reports the crash and closes, and the page starts
// another. No DOM, so it runs in the worker and under Node.

import { HttpError } from './http-blob.js';
import { isParseError } from './protocol.js';

/**
 * Whether `e` is an answer about the file rather than a crash: a ParseError, an HttpError, or a
 * wasm module's refusal — a plain Error ("unknown KV cache type", "there is no tensor #9").
 * Anything else (WebAssembly.RuntimeError, RangeError, TypeError, …) is a crash.
 */
export function isAnswer(e) {
  return isParseError(e) || e instanceof HttpError || e?.constructor === Error;
}

/**
 * What a crash was, for the page: `{code: 'out-of-memory'|'crashed', message}`.
 * @param {unknown} e  What was thrown.
 * @param {{memory: WebAssembly.Memory, maxMemory: number}|null} parser  The parser module's
 *   memory and the cap on it (`maxMemory()`); null when the module did not load.
 */
export function describeCrash(e, parser) {
  const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  if (!parser) return { code: 'crashed', message: `it could not be loaded: ${what}` };
  if (e instanceof RangeError && /allocation failed|out of memory/i.test(e.message)) {
    return { code: 'out-of-memory', message: `out of memory: ${e.message}` };
  }
  // A failed allocation ends a Rust module with the same trap as a panic. The decoder's buffers
  // grow by doubling at most, so an allocation that fails asks for at most twice what is in use:
  // with over a third of the cap in use, the cap is what stopped it.
  if (e instanceof WebAssembly.RuntimeError && parser.memory.buffer.byteLength * 3 > parser.maxMemory) {
    return { code: 'out-of-memory', message: `out of memory: this file needs more than the ${parser.maxMemory / 2 ** 20} MiB the parser may use` };
  }
  return { code: 'crashed', message: `internal error: ${what}` };
}
