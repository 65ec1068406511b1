// The wasm modules in a worker: the one loader (`loadModule`) and the one trap guard. Which
// failures are answers for the page — the file is malformed, the server refuses, a module refuses
// a request — and which are crashes that leave the worker unusable: a trap of a wasm module (a
// Rust panic or an allocation that failed), a stack overflow, a bug. After a trap the module's
// state cannot be trusted, so the worker reports the crash and closes (gguf-worker.js), and the
// page starts another (gguf-client.js): a fresh worker is a fresh instance of every module. No
// DOM, so it runs in the worker and under Node.

import { HttpError } from './http-blob.js';
import { RELOAD_FOR_UPDATE, isParseError, parseError } from './protocol.js';

/**
 * The modules (wasm-pack.toml's, crates/gguf-wasm built once per feature): what each is called
 * when it fails, its glue and its wasm file — each a literal `import()` and `new URL(…,
 * import.meta.url)`, so that bundlers find every module — and where they are (`dir`, `name`:
 * wasm-pack.toml's `out-dir` under web/ and `out-name`, which a test holds them to). The package's
 * worker for bundlers that follow no `new URL` (gguf-worker-chunk.js) is built with each `wasm`
 * an import of the module's bytes instead (scripts/bundle-web.mjs): a promise of the compiled module.
 * @type {Record<string, {what: string, glue: () => Promise<any>, wasm: () => URL|Promise<WebAssembly.Module>, dir: string, name: string}>}
 */
export const MODULES = {
  viewer: {
    what: 'the parser',
    glue: () => import('./pkg/gguf_wasm.js'),
    wasm: () => new URL('./pkg/gguf_wasm_bg.wasm', import.meta.url),
    dir: 'pkg',
    name: 'gguf_wasm',
  },
  memory: {
    what: 'the memory module',
    glue: () => import('./pkg-memory/gguf_memory_wasm.js'),
    wasm: () => new URL('./pkg-memory/gguf_memory_wasm_bg.wasm', import.meta.url),
    dir: 'pkg-memory',
    name: 'gguf_memory_wasm',
  },
  values: {
    what: 'the values module',
    glue: () => import('./pkg-values/gguf_values_wasm.js'),
    wasm: () => new URL('./pkg-values/gguf_values_wasm_bg.wasm', import.meta.url),
    dir: 'pkg-values',
    name: 'gguf_values_wasm',
  },
  'values-simd': {
    what: 'the values module',
    glue: () => import('./pkg-values-simd/gguf_values_wasm.js'),
    wasm: () => new URL('./pkg-values-simd/gguf_values_wasm_bg.wasm', import.meta.url),
    dir: 'pkg-values-simd',
    name: 'gguf_values_wasm',
  },
  edit: {
    what: 'the edit module',
    glue: () => import('./pkg-edit/gguf_edit_wasm.js'),
    wasm: () => new URL('./pkg-edit/gguf_edit_wasm_bg.wasm', import.meta.url),
    dir: 'pkg-edit',
    name: 'gguf_edit_wasm',
  },
  diff: {
    what: 'the comparison module',
    glue: () => import('./pkg-diff/gguf_diff_wasm.js'),
    wasm: () => new URL('./pkg-diff/gguf_diff_wasm_bg.wasm', import.meta.url),
    dir: 'pkg-diff',
    name: 'gguf_diff_wasm',
  },
  upstream: {
    what: 'the upstream module',
    glue: () => import('./pkg-upstream/gguf_upstream_wasm.js'),
    wasm: () => new URL('./pkg-upstream/gguf_upstream_wasm_bg.wasm', import.meta.url),
    dir: 'pkg-upstream',
    name: 'gguf_upstream_wasm',
  },
  tokenizer: {
    what: 'the tokenizer',
    glue: () => import('./pkg-tokenizer/gguf_tokenizer_wasm.js'),
    wasm: () => new URL('./pkg-tokenizer/gguf_tokenizer_wasm_bg.wasm', import.meta.url),
    dir: 'pkg-tokenizer',
    name: 'gguf_tokenizer_wasm',
  },
  template: {
    what: 'the template engine',
    glue: () => import('./pkg-template/gguf_template_wasm.js'),
    wasm: () => new URL('./pkg-template/gguf_template_wasm_bg.wasm', import.meta.url),
    dir: 'pkg-template',
    name: 'gguf_template_wasm',
  },
};

/**
 * A module loaded: its glue's exports (initialised), its memory, the cap on it (`maxMemory()`,
 * from wasm-pack.toml) and what it is called in a message.
 * @typedef {{glue: any, memory: WebAssembly.Memory, maxMemory: number, what: string}} Loaded
 */

/** @type {Map<string, Promise<Loaded>>} */
const loading = new Map();
/** @type {Loaded[]} */
const loaded = [];

/**
 * Module `name` (`viewer`, `memory`, `values`, `values-simd`, `edit`, `diff`, `upstream`, `tokenizer`,
 * `template`),
 * fetched and instantiated on first use, once per worker. Under Node (a `file:` URL) its bytes
 * are read from disk, as `fetch` reads no files there. Rejects with a ParseError `not-loaded`
 * when it cannot be loaded (the next call tries again), the browser's error as its `cause`.
 * @param {keyof typeof MODULES} name
 * @returns {Promise<Loaded>}
 */
export function loadModule(name) {
  const spec = MODULES[name];
  if (!spec) throw new Error(`no wasm module named ${JSON.stringify(name)}`);
  let module = loading.get(name);
  if (!module) {
    module = (async () => {
      // The compile starts before the glue is evaluated, and streams as the bytes come.
      const [compiled, glue] = await Promise.all([compile(spec.wasm()), spec.glue()]);
      const { memory } = await glue.default({ module_or_path: compiled });
      const one = { glue, memory, maxMemory: glue.maxMemory?.() ?? 2 ** 32, what: spec.what };
      loaded.push(one);
      return one;
    })().catch((e) => {
      loading.delete(name);
      // The browser's reason stays with it (`cause`, not posted): a worker that cannot load its
      // parser has crashed, rather than answered.
      throw Object.defineProperty(parseError('not-loaded', `${spec.what} could not be loaded: ${e.message}`), 'cause', {
        value: e,
      });
    });
    loading.set(name, module);
  }
  return module;
}

/**
 * The compiled module of `wasm` (a module's `wasm()`): compiled as it downloads; under Node (a
 * `file:` URL) from the file's bytes, as `fetch` reads no files there.
 * @param {URL|Promise<WebAssembly.Module>} wasm
 */
async function compile(wasm) {
  if (!(wasm instanceof URL)) return wasm;
  const fs = wasm.protocol === 'file:' ? globalThis.process?.getBuiltinModule?.('node:fs') : null;
  if (fs) return WebAssembly.compile(fs.readFileSync(wasm));
  const response = await fetch(wasm);
  if (!response.ok) {
    const gone = response.status === 404 || response.status === 410 ? ` (${RELOAD_FOR_UPDATE})` : '';
    throw new Error(`${wasm.pathname.split('/').pop()}: ${response.status} ${response.statusText}${gone}`);
  }
  // A server that gives wasm another type: compiled once downloaded, as streaming needs the type.
  if (!/^application\/wasm\b/.test(response.headers.get('Content-Type') ?? ''))
    return WebAssembly.compile(await response.arrayBuffer());
  return WebAssembly.compileStreaming(response);
}

/** The modules loaded so far in this worker: what a crash report looks at. */
export function loadedModules() {
  return [...loaded];
}

/**
 * Whether `e` is an answer about the file rather than a crash: a ParseError (an edit's refusal,
 * a template's render failure: any plain object with a `message`), an HttpError, or a wasm
 * module's refusal — a plain Error ("unknown KV cache type", "there is no tensor #9").
 * Anything else (WebAssembly.RuntimeError, RangeError, TypeError, …) is a crash.
 */
export function isAnswer(e) {
  return (
    isParseError(e) ||
    e instanceof HttpError ||
    e?.constructor === Error ||
    (e !== null && typeof e === 'object' && !(e instanceof Error) && typeof e.message === 'string')
  );
}

/**
 * What a crash was, for the page: `{code: 'out-of-memory'|'crashed', message}`.
 * @param {unknown} e  What was thrown.
 * @param {{memory: WebAssembly.Memory, maxMemory: number, what?: string}|{memory: WebAssembly.Memory, maxMemory: number, what?: string}[]|null} modules
 *   The modules loaded (their memory, the cap on it — `maxMemory()` — and what each is called,
 *   'the parser' when not said); null or none when no module loaded.
 */
export function describeCrash(e, modules) {
  const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  const all = [modules ?? []].flat();
  if (all.length === 0) return { code: 'crashed', message: `it could not be loaded: ${what}` };
  if (e instanceof RangeError && /allocation failed|out of memory/i.test(e.message)) {
    return { code: 'out-of-memory', message: `out of memory: ${e.message}` };
  }
  // A failed allocation ends a Rust module with the same trap as a panic. The modules' buffers
  // grow by doubling at most, so an allocation that fails asks for at most twice what is in use:
  // with over a third of its cap in use, a module's cap is what stopped it.
  const full = e instanceof WebAssembly.RuntimeError && all.find((m) => m.memory.buffer.byteLength * 3 > m.maxMemory);
  if (full) {
    return {
      code: 'out-of-memory',
      message: `out of memory: this file needs more than the ${full.maxMemory / 2 ** 20} MiB ${full.what ?? 'the parser'} may use`,
    };
  }
  return { code: 'crashed', message: `internal error: ${what}` };
}
