// A model against its upstream repository in JavaScript: `upstream(file, source)` checks a GGUF
// file's metadata against upstream's config.json, tokenizer_config.json, generation_config.json
// and chat_template.jinja — hyperparameters, RoPE scaling, vocabulary size, special tokens, the
// chat template — and resolves the document `ggufscope upstream --json` prints. Only the file's
// header is read: of a URL, with Range requests.
//
// The checks and their JSON are gguf-upstream's, in a wasm module of its own (web/pkg-upstream,
// the upstream module) that runs in a worker (GgufClient.shared(), tools.js: under its watchdog,
// off the page's thread) and is fetched on the first check, so the viewer's parser does not
// carry them. Nothing is fetched from a repository unless `source` is a URL. Plain JS with no
// DOM: it runs in a page, a worker, and under Node.
//
//   import { upstream } from './web/gguf.js';
//   const doc = await upstream(file, 'https://huggingface.co/google/gemma-3-270m/resolve/main/');
//   const doc2 = await upstream(file, { config: configFile, tokenizerConfig: '{"eos_token": "<eos>"}' });
//   doc.differences, doc.checks.filter((c) => c.status === 'differs'), …

import { GgufClient } from './gguf-client.js';
import { HttpError, fileNameOf } from './http-blob.js';
import { Request } from './protocol.js';
import { postable, utf8Text } from './sources.js';

/**
 * The upstream files, each with the name `upstream()` takes its text under, in the order they
 * are read (gguf_upstream::FILES). `config.json` is required; the others are read when present.
 */
export const UPSTREAM_FILES = Object.freeze(
  /** @type {[string, string][]} */ ([
    ['config.json', 'config'],
    ['tokenizer_config.json', 'tokenizerConfig'],
    ['generation_config.json', 'generationConfig'],
    ['chat_template.jinja', 'chatTemplate'],
  ]),
);

/** Bytes of an upstream file read at most, as the CLI: configurations are kilobytes, a chat template tens. */
const MAX_FILE = 16 << 20;

/**
 * Checks `file` against its upstream repository and resolves `ggufscope upstream --json`'s
 * document: `{file, source, read: [files read], not_read: [files not read, whose fields go
 * unchecked], checks: [{field, gguf_key, upstream_key, gguf, upstream, status, impact, note, diff,
 * fix}], differences}` (docs/json.md's "The upstream document" documents it; figures above 2^53
 * stay BigInt). `fix`, on a difference a metadata edit mends, is `{key, type, value, argument}`:
 * the `ggufscope edit` argument, and what `edit()` takes as `{set: key, value, type}`. `status` is 'same', 'differs',
 * 'missing-in-gguf' or 'missing-upstream'; `impact` says what a difference means for inference.
 *
 * Runs in a worker and reads only the file's header. Rejects with a ParseError
 * (`{message, offset, context}`) when the file is not a GGUF file or cannot be read, with an
 * HttpError (http-blob.js) when a URL cannot be read, with an Error when there is no config.json
 * or an upstream file is not a JSON object (the message names it), with a ParseError `not-loaded`
 * when the module cannot be loaded, and with a ParserFailure (`code` 'stalled', 'out-of-memory'
 * or 'crashed', as failures.js says) when the module was stopped; the next check then starts a
 * fresh worker.
 *
 * @param {Blob|URL|string} file  A File or Blob (or a look-alike: `size` and
 *   `slice(start, end).arrayBuffer()`), or a URL (relative to the page) read with Range requests.
 *   A shard of a split model is checked alone (the first holds the metadata). (Also a file of a
 *   GgufClient's OpenedModel — the viewer's model —, whose header is taken as the viewer read it.)
 * @param {URL|string|{config: string|Blob, tokenizerConfig?: string|Blob|null, generationConfig?: string|Blob|null, chatTemplate?: string|Blob|null}} source
 *   A repository's base URL (`https://huggingface.co/ORG/REPO/resolve/main/`), its files fetched
 *   with {@link fetchUpstream}; or the files' texts, or Files, by name (null or absent: the
 *   repository does not have it).
 * @param {{fileName?: string, sourceName?: string, client?: GgufClient}} [options]  What the
 *   document calls the file (`file`: by default a File's `name` or a URL's file name) and upstream
 *   (`source`: by default the base URL, else 'files'); the client whose worker runs it
 *   (GgufClient.shared()).
 * @returns {Promise<import('./gguf.js').UpstreamDocument>}
 */
export async function upstream(
  file,
  source,
  { fileName = nameOf(file), sourceName = isUrl(source) ? String(source) : 'files', client = GgufClient.shared() } = {},
) {
  const texts = isUrl(source) ? await fetchUpstream(source) : await readTexts(source);
  return client.request(
    Request.upstream,
    { fileName, sourceName, texts },
    { sources: { file: isUrl(file) ? { url: new URL(file, base()).href } : file } },
  );
}

/**
 * The Hugging Face repositories `file` names — its source first, then its base models, each once
 * (gguf_upstream::repositories, the core's rule: the upstream module reads the file's header) —
 * as the base URL their files are fetched from: `[{key, repo: 'ORG/REPO', base:
 * 'https://huggingface.co/ORG/REPO/resolve/main/'}]`. What the page offers to fetch.
 * @param {Blob|URL|string} file  As {@link upstream} takes it.
 * @param {{client?: GgufClient}} [options]
 * @returns {Promise<{key: string, repo: string, base: string}[]>}
 */
export function repositoriesOf(file, { client = GgufClient.shared() } = {}) {
  return client.request(
    Request.repositories,
    {},
    { sources: { file: isUrl(file) ? { url: new URL(file, base()).href } : file } },
  );
}

/**
 * Fetches the upstream files from the repository at `base` (a directory URL: a missing final
 * slash is added), as the CLI does for a URL SOURCE: each of {@link UPSTREAM_FILES}; one the
 * server answers 404 for is left out, but config.json must be there. Resolves their texts by name
 * (`{config, tokenizerConfig?, generationConfig?, chatTemplate?}`); rejects with an HttpError for
 * another failure, naming the URL.
 * @param {URL|string} base
 * @param {{signal?: AbortSignal}} [options]
 */
export async function fetchUpstream(base, { signal } = {}) {
  const texts = {};
  for (const [name, field] of UPSTREAM_FILES) {
    const url = childUrl(base, name);
    let response;
    try {
      response = await fetch(url, { signal, credentials: 'omit' });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new HttpError(
        'unreachable',
        `${url}: cannot be fetched (${e.message}): the server is unreachable, or does not allow this page (CORS)`,
      );
    }
    if (response.status === 404) {
      await response.body?.cancel();
      if (field === 'config')
        throw new HttpError(
          'not-found',
          `${url}: no config.json: the upstream repository's configuration is needed`,
          404,
        );
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new HttpError(
        [401, 403].includes(response.status) ? 'access-denied' : 'http-status',
        `${url}: the server answered ${response.status} ${response.statusText}`.trimEnd(),
        response.status,
      );
    }
    texts[field] = await boundedText(response, url);
  }
  return texts;
}

/**
 * The repositories a file names (`general.source.url`, `general.source.huggingface.repository`,
 * `general.base_model.N.repo_url`) that are Hugging Face models, as the base URL their files are
 * fetched from: `[{key, repo: 'ORG/REPO', base: 'https://huggingface.co/ORG/REPO/resolve/main/'}]`,
 * the source first, each repository once. Other URLs are left out: where their files are is not
 * known. The package's synchronous form over a report's metadata; the rule is the core's
 * (gguf_upstream::repositories, which {@link repositoriesOf} asks and the page uses), and a test
 * holds the two to the same answers.
 * @param {{key: string, value: unknown}[]} metadata  The report's metadata entries.
 */
export function upstreamRepositories(metadata) {
  const out = [];
  const isBaseModel = (key) => /^general\.base_model\.\d+\.repo_url$/.test(key);
  const ordered = [
    ...metadata.filter((e) => e.key === 'general.source.url' || e.key === 'general.source.huggingface.repository'),
    ...metadata.filter((e) => isBaseModel(e.key)),
  ];
  for (const { key, value } of ordered) {
    if (typeof value !== 'string') continue;
    const repo = key === 'general.source.huggingface.repository' ? repositoryName(value) : huggingFaceRepository(value);
    if (repo && !out.some((r) => r.repo === repo))
      out.push({ key, repo, base: `https://huggingface.co/${repo}/resolve/main/` });
  }
  return out;
}

/** `ORG/REPO` of a Hugging Face model URL (`https://huggingface.co/ORG/REPO[/…]`), or null. */
function huggingFaceRepository(text) {
  const url = URL.parse(text.trim());
  if (url?.protocol !== 'https:' || (url.hostname !== 'huggingface.co' && url.hostname !== 'hf.co')) return null;
  const [org, name] = url.pathname.split('/').filter(Boolean);
  return org && name ? repositoryName(`${org}/${name}`) : null;
}

/** `text` when it is a repository name as Hugging Face allows them (`ORG/REPO`), else null. */
function repositoryName(text) {
  const name = text.trim();
  return /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/.test(name) && !name.includes('..') ? name : null;
}

/** `name` under the directory URL `base`, a query kept after it (as the CLI's Location::child). */
function childUrl(base, name) {
  const url = new URL(base, globalThis.document?.baseURI ?? globalThis.location?.href);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  url.pathname += name;
  return url;
}

/** The response's text, refused past {@link MAX_FILE} bytes (read no further) or when not UTF-8. */
async function boundedText(response, url) {
  const reader = response.body.getReader();
  const parts = [];
  let length = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    length += r.value.length;
    if (length > MAX_FILE) {
      await reader.cancel();
      throw new HttpError('not-config', `${url}: longer than ${MAX_FILE} bytes: not a configuration file`);
    }
    parts.push(r.value);
  }
  return utf8Text(new Blob(parts), String(url));
}

/**
 * The texts of `files` by name: strings as they are; Blobs as they are where they can be posted
 * (a browser's: the worker reads them, so a 16 MiB template is not decoded on the page's thread),
 * else read as UTF-8 here.
 */
async function readTexts(files) {
  if (files === null || typeof files !== 'object')
    throw new TypeError(
      'upstream(): source is a base URL or {config, tokenizerConfig, generationConfig, chatTemplate}',
    );
  const texts = {};
  for (const [name, field] of UPSTREAM_FILES) {
    const value = files[field];
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') texts[field] = value;
    else if (value.size > MAX_FILE)
      throw new Error(`${value.name ?? name}: ${value.size} bytes, longer than ${MAX_FILE}: not a configuration file`);
    else if (postable(value))
      texts[field] = 'name' in value ? value : new File([value], name); // named as the worker says it
    else texts[field] = await utf8Text(value, value.name ?? name);
  }
  if (texts.config === undefined) throw new Error("no config.json: the upstream repository's configuration is needed");
  return texts;
}

/**
 * `texts` in the form the page shows file text in (`gguf_core::tokenizer::visible`: control,
 * invisible and bidirectional characters as `\n`, `\u{202E}`…), from the upstream module in the
 * worker: for a view of upstream()'s document.
 * @param {string[]} texts
 * @param {{client?: GgufClient}} [options]
 * @returns {Promise<string[]>}
 */
export function visibleText(texts, { client = GgufClient.shared() } = {}) {
  return client.request(Request.visible, { texts });
}

const isUrl = (source) => typeof source === 'string' || source instanceof URL;
const base = () => globalThis.document?.baseURI ?? globalThis.location?.href;

/** What to call `file` by default: a URL's file name, a File's name, else 'file'. */
function nameOf(file) {
  return isUrl(file) ? fileNameOf(String(new URL(file, base()))) : (file.name ?? 'file');
}
