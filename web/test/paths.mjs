// Where the JavaScript tests (web/test, www/e2e) find what they do not build themselves, and the
// one rule for what is missing. scripts/test.sh builds the CLI and writes the builder-made files
// once, then names them:
//   GGUFSCOPE_BIN        the ggufscope binary (target/ci/ggufscope)
//   GGUF_TEST_FIXTURES   the folder `write-fixtures` wrote (target/test-fixtures): hostile.gguf,
//                        heavy-headers/, value-pairs/, …
// Run by hand: build both as scripts/test.sh's Rust tests do (the `ci` profile, the tests of
// gguf-cli and gguf-test-support), run `target/ci/write-fixtures target/test-fixtures`, and set both.
//
// The shared fixtures and the Gemma model follow the Rust tests' rule
// (crates/gguf-test-support/src/fixtures.rs): missing, a test is skipped, loudly; with CI set
// (non-empty), or named by its variable and not there, it fails.

import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';

/** Whether the tests run in CI: `CI` set and not empty. */
const inCi = Boolean(process.env.CI);

/** `$name`, which must name something that is there. */
function named(variable, what, howTo) {
  const path = process.env[variable];
  if (!path) throw new Error(`${variable} is not set: it names ${what} (${howTo}; scripts/test.sh sets it)`);
  if (!existsSync(path)) throw new Error(`${variable} names ${path}, which is not there (${what})`);
  return path;
}

/** The ggufscope binary the tests run (GGUFSCOPE_BIN). */
export function ggufscopeBin() {
  return named('GGUFSCOPE_BIN', 'the ggufscope binary', 'the Rust tests of gguf-cli build target/ci/ggufscope');
}

/** The builder-made file or folder `name` (GGUF_TEST_FIXTURES/name). */
export function builtFixture(name) {
  const path = join(
    named('GGUF_TEST_FIXTURES', 'the files write-fixtures wrote', 'target/ci/write-fixtures DIR writes them'),
    name,
  );
  if (!existsSync(path)) throw new Error(`${path} is not there: write-fixtures writes it (crates/gguf-test-support)`);
  return path;
}

/** Links the builder-made file `name` into `dir` under its own name, or each file of the folder
 * `name`; makes `dir` when it is not there. Returns `dir`. */
export function linkBuiltFixture(name, dir) {
  const path = builtFixture(name);
  mkdirSync(dir, { recursive: true });
  const files = statSync(path).isDirectory() ? readdirSync(path).map((f) => join(path, f)) : [path];
  for (const file of files) symlinkSync(file, join(dir, basename(file)));
  return dir;
}

/** The complete Gemma 3 270M model: GGUF_GEMMA, or where fetch-gemma.sh puts it. */
export const GEMMA = process.env.GGUF_GEMMA || join(homedir(), '.cache/gguf-fixtures/gemma-3-270m-q4_k_m.gguf');

/** For a test's `skip` option: false when `path` is there; a reason to skip when it is not, said
 * loudly; a thrown error instead when `variable` names it or CI is set. */
export function missing(what, path, variable) {
  if (path && existsSync(path)) return false;
  if (process.env[variable]) throw new Error(`${variable} names ${path}, which is not there (${what})`);
  if (inCi)
    throw new Error(
      `no ${what} at ${path}: CI is set, so a test that needs it fails rather than passing unchecked (set ${variable})`,
    );
  const reason = `no ${what} at ${path} (set ${variable}; with CI set this fails)`;
  console.error(`SKIPPED: ${reason}`);
  return reason;
}

/** `missing` for the complete Gemma model. */
export const noGemma = () => missing('Gemma model', GEMMA, 'GGUF_GEMMA');
