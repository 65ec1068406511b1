#!/usr/bin/env node
// The wasm modules that wasm-pack.toml declares (one crate, crates/gguf-wasm, built once per
// entry), read with a TOML parser (smol-toml, pinned in package.json) and checked: what
// scripts/build-web.sh builds, the benchmark measures and the tests look for. As a program it
// prints them one a line for the build script, fields separated by `|` (a tab would not do: the
// shell's `read` runs empty fields between tabs together):
//   FEATURE|PROFILE|OUT-DIR|OUT-NAME|RUSTFLAGS|WASM-OPT   (the last two maybe empty)
// Usage: node scripts/wasm-modules.mjs

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';

export const MANIFEST = fileURLToPath(new URL('../wasm-pack.toml', import.meta.url));

const REQUIRED = ['feature', 'profile', 'out-dir', 'out-name', 'max-memory', 'loaded-by'];
const OPTIONAL = ['rustflags', 'wasm-opt'];

/**
 * The modules of `text` (wasm-pack.toml's), in order: `{feature, profile, outDir, outName,
 * rustflags, wasmOpt, maxMemory, loadedBy}` (`rustflags` and `wasmOpt` '' when not given). Throws
 * an Error naming the entry and the field for a file that is not TOML, a field missing, unknown
 * or of the wrong type, or two entries writing one directory.
 * @param {string} text
 */
export function wasmModules(text = readFileSync(MANIFEST, 'utf8')) {
  const { module: modules, ...rest } = parse(text);
  if (Object.keys(rest).length)
    throw new Error(`wasm-pack.toml: unknown top-level ${Object.keys(rest).join(', ')} (only [[module]] entries)`);
  if (!Array.isArray(modules) || modules.length === 0) throw new Error('wasm-pack.toml: no [[module]] entry');
  const seen = new Set();
  return modules.map((m, i) => {
    const where = `wasm-pack.toml, module #${i + 1}${typeof m.feature === 'string' ? ` (${m.feature})` : ''}`;
    for (const key of Object.keys(m))
      if (!REQUIRED.includes(key) && !OPTIONAL.includes(key)) throw new Error(`${where}: unknown field ${key}`);
    for (const key of REQUIRED) if (!(key in m)) throw new Error(`${where}: ${key} is missing`);
    for (const key of [...REQUIRED, ...OPTIONAL]) {
      const want = key === 'max-memory' ? 'number' : 'string';
      if (key in m && typeof m[key] !== want)
        throw new Error(`${where}: ${key} must be a ${want === 'number' ? 'number of bytes' : 'string'}`);
    }
    if (!Number.isSafeInteger(m['max-memory']) || m['max-memory'] <= 0 || m['max-memory'] % 65536)
      throw new Error(`${where}: max-memory must be a positive multiple of 64 KiB (a wasm page)`);
    if (seen.has(m['out-dir'])) throw new Error(`${where}: another module is written to ${m['out-dir']} too`);
    seen.add(m['out-dir']);
    return {
      feature: m.feature,
      profile: m.profile,
      outDir: m['out-dir'],
      outName: m['out-name'],
      rustflags: m.rustflags ?? '',
      wasmOpt: m['wasm-opt'] ?? '',
      maxMemory: m['max-memory'],
      loadedBy: m['loaded-by'],
    };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    for (const m of wasmModules()) {
      const fields = [m.feature, m.profile, m.outDir, m.outName, m.rustflags, m.wasmOpt];
      if (fields.some((f) => f.includes('|'))) throw new Error(`module ${m.feature}: a field holds "|", the separator`);
      console.log(fields.join('|'));
    }
  } catch (e) {
    console.error(`wasm-modules: ${e.message}`);
    process.exit(1);
  }
}
