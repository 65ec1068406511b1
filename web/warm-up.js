// The parser made fast before the first file: a worker's wasm starts in its baseline tier and is
// compiled again, optimized, only once a function has run for a while (V8's tiering), so the
// first header a worker decodes took two to five times as long as the next. As the worker
// starts, in steps that let a request in between, it decodes a made-up header shaped like a big
// vocabulary's — strings, their scores and types, merges, tensor infos — and puts together its
// summary and report: what the first file then finds optimized. Nothing is read or posted.

import { GgufModel, GgufSession } from './pkg/gguf_wasm.js';

/** Tokens in the made-up vocabulary (merges: half as many), and the tensors after it. */
const TOKENS = 1 << 16;
const TENSORS = 256;
/** The bytes fed at a time (at least), as a file's stream hands them over. */
const CHUNK = 1 << 16;
/** The digits of base 36, as bytes. */
const BASE36 = Uint8Array.from('0123456789abcdefghijklmnopqrstuvwxyz', (c) => c.charCodeAt(0));
/** A 4096 × 4096 Q4_K tensor's bytes (256 values a block of 144 bytes). */
const TENSOR_BYTES = ((4096 * 4096) / 256) * 144;

/** Decodes the made-up header in the viewer module's classes; resolves when done. */
export async function warmUp() {
  const bytes = header();
  // The file as big as its tensors say, so that it is whole: only the header is ever asked for.
  const session = new GgufSession(bytes.length + TENSORS * TENSOR_BYTES);
  try {
    for (let need = session.nextRead(); need; need = session.nextRead()) {
      if (need.offset >= bytes.length) throw new Error('the made-up header asks for bytes past its end');
      session.feed(bytes.subarray(need.offset, need.offset + Math.max(need.length, CHUNK)));
      await new Promise((resolve) => setTimeout(resolve)); // a request waiting goes first
    }
  } catch (e) {
    session.free();
    throw e;
  }
  const model = new GgufModel([session], ['warm-up.gguf']);
  try {
    model.summary();
    await new Promise((resolve) => setTimeout(resolve));
    model.report();
  } finally {
    model.free();
  }
}

/** A GGUF v3 header: a llama model's keys, a BPE vocabulary of TOKENS, and TENSORS tensor infos. */
function header() {
  const bytes = new Uint8Array(1 << 22);
  const view = new DataView(bytes.buffer);
  let at = 0;
  const u32 = (n) => (view.setUint32(at, n, true), (at += 4));
  const u64 = (n) => (view.setUint32(at, n % 2 ** 32, true), view.setUint32(at + 4, n / 2 ** 32, true), (at += 8));
  const string = (s) => {
    u64(s.length);
    for (let i = 0; i < s.length; i++) bytes[at++] = s.charCodeAt(i); // ASCII
  };
  /** `prefix` then `n` in base 36, as a string of the header (made without a JS string). */
  const named = (prefix, n, suffix = '') => {
    let digits = 1;
    for (let m = n; m >= 36; m = Math.floor(m / 36)) digits++;
    u64(prefix.length + digits + suffix.length);
    for (let i = 0; i < prefix.length; i++) bytes[at++] = prefix.charCodeAt(i);
    for (let i = digits - 1, m = n; i >= 0; i--, m = Math.floor(m / 36)) bytes[at + i] = BASE36[m % 36];
    at += digits;
    for (let i = 0; i < suffix.length; i++) bytes[at++] = suffix.charCodeAt(i);
  };
  const key = (name, type) => (string(name), u32(type));
  const [U32, I32, F32, STRING, ARRAY] = [4, 5, 6, 8, 9];
  bytes.set([0x47, 0x47, 0x55, 0x46]); // GGUF
  at = 4;
  u32(3);
  u64(TENSORS);
  u64(8);
  (key('general.architecture', STRING), string('llama'));
  (key('llama.block_count', U32), u32(TENSORS / 8));
  (key('llama.embedding_length', U32), u32(4096));
  (key('tokenizer.ggml.model', STRING), string('gpt2'));
  (key('tokenizer.ggml.tokens', ARRAY), u32(STRING), u64(TOKENS));
  for (let i = 0; i < TOKENS; i++) named('tok', i);
  (key('tokenizer.ggml.scores', ARRAY), u32(F32), u64(TOKENS));
  for (let i = 0; i < TOKENS; i++) view.setFloat32(at + 4 * i, -i, true);
  at += 4 * TOKENS;
  (key('tokenizer.ggml.token_type', ARRAY), u32(I32), u64(TOKENS));
  for (let i = 0; i < TOKENS; i++) view.setInt32(at + 4 * i, 1, true);
  at += 4 * TOKENS;
  (key('tokenizer.ggml.merges', ARRAY), u32(STRING), u64(TOKENS / 2));
  for (let i = 0; i < TOKENS / 2; i++) named('t', i, ' k');
  const parts = ['up', 'down', 'gate', 'norm', 'q', 'k', 'v', 'o'];
  for (let i = 0; i < TENSORS; i++) {
    string(`blk.${i >> 3}.ffn_${parts[i & 7]}.weight`);
    (u32(2), u64(4096), u64(4096), u32(12), u64(i * TENSOR_BYTES));
  }
  // Then the padding to the data's alignment (32).
  return bytes.subarray(0, Math.ceil(at / 32) * 32);
}
