// The "Compare with upstream" panel: the open model's metadata against its upstream repository's
// config.json, tokenizer_config.json, generation_config.json and chat_template.jinja — dropped or
// picked (recognised by name, several at once), or fetched from a repository the file names or
// the user types. Fetching happens only when the user clicks; dropped files work offline. The
// checks are gguf-upstream's (web/upstream.js, `ggufscope upstream --json`'s document, with the
// CLI's explanations of what each difference means): this only draws them — differences first,
// then every field, a chat template's changed lines as a line diff.

import { UPSTREAM_FILES, fetchUpstream, repositoriesOf, upstream, visibleText } from './web/upstream.js';
import { h, replaceChildren } from './dom.js';
import { grouped } from './format.js';
import { tokenText } from './tokenizer-view.js';

/** Characters of a value shown in a row: a template's differing lines are in its diff. */
const VALUE_CUT = 120;
/** Diff lines drawn at a time: a long template's diff must not stall the page. */
const STEP = 200;
const STATUS_TEXT = {
  same: 'same',
  differs: 'differs',
  'missing-in-gguf': 'missing in this file',
  'missing-upstream': 'not upstream',
};

/** Whether `files` are upstream files rather than a model: each named as one (config.json, …). */
export function upstreamFiles(files) {
  const names = new Set(UPSTREAM_FILES.map(([name]) => name));
  return files.length > 0 && [...files].every((f) => names.has(f.name));
}

export class UpstreamView {
  /**
   * @param {object} options
   * @param {() => {source: Blob|Blob[]|{url: URL}, name: string, model: () => Promise<import('./web/gguf-client.js').OpenedModel>}|null} options.current
   *   The model shown — its files with the headers the viewer read, which the checks take (none
   *   is read again) —, or null while none is.
   * @param {((fix: {key: string, value: string, type: string|null}) => void)|null} [options.onFix]
   *   Opens Edit with a difference's fix filled in; null where the viewer cannot edit (no button).
   */
  constructor({ current, onFix = null }) {
    this.current = current;
    this.onFix = onFix;
    this.checked = 0; // checks started: a late answer to an earlier one must not paint
    this.shown = 0; // times opened: a late list of repositories must not paint
    this.files = new Map(); // upstream file name → File, as given
    this.fileInput = h('input', {
      type: 'file',
      accept: '.json,.jinja,application/json',
      multiple: true,
      hidden: true,
      'aria-label': 'Upstream files to compare with',
    });
    this.fileInput.addEventListener('change', () => {
      const files = [...this.fileInput.files];
      this.fileInput.value = ''; // so that choosing the same files again checks again
      this.take(files);
    });
    this.urlInput = h('input', {
      type: 'url',
      placeholder: 'https://huggingface.co/ORG/REPO/resolve/main/',
      'aria-label': 'Base URL of the upstream repository',
      required: true,
    });
    const urlForm = h(
      'form',
      { class: 'compare-url' },
      this.urlInput,
      h('button', { type: 'submit', class: 'button small', dataset: { action: 'upstream-fetch-url' } }, 'Fetch'),
    );
    urlForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const url = URL.parse(this.urlInput.value.trim(), location.href);
      if (url?.protocol !== 'https:' && url?.protocol !== 'http:')
        return this.#fail('only http and https URLs can be fetched from');
      this.#fetch(url.href);
    });
    this.given = h('p', { class: 'note', dataset: { field: 'upstream-given' } });
    this.repositories = h('div', { class: 'compare-pick' });
    this.button = h(
      'button',
      { type: 'button', class: 'button small', dataset: { action: 'upstream' }, onclick: () => this.show() },
      'Compare with upstream',
    );
    this.status = h('p', { class: 'note', role: 'status', dataset: { field: 'upstream-status' } });
    this.body = h('div', { class: 'compare-body' });
    this.panel = h(
      'section',
      { class: 'panel compare upstream', id: 'upstream', 'aria-label': 'Compare with upstream', hidden: true },
      h(
        'div',
        { class: 'panel-head' },
        h('h2', {}, 'Compare with upstream'),
        h(
          'button',
          { type: 'button', class: 'button small', dataset: { action: 'upstream-close' }, onclick: () => this.close() },
          'Close',
        ),
      ),
      h(
        'p',
        { class: 'note' },
        "Checks this file against the model it claims to be: hyperparameters, RoPE scaling, special tokens and the chat template, each against the upstream repository's config.json, tokenizer_config.json, generation_config.json and chat_template.jinja. Drop those files anywhere on this page or pick them (read in this tab), or fetch them: nothing is fetched until you click.",
      ),
      h(
        'div',
        { class: 'compare-pick' },
        h(
          'button',
          {
            type: 'button',
            class: 'button small',
            dataset: { action: 'upstream-files' },
            onclick: () => this.fileInput.click(),
          },
          'Pick files…',
        ),
        this.fileInput,
        urlForm,
      ),
      this.repositories,
      this.given,
      this.status,
      this.body,
    );
  }

  /**
   * Opens the panel, offering the repositories the open model names (the core's rule, asked of
   * the upstream module: they show as soon as it answers).
   */
  show() {
    const shown = this.current();
    const ticket = ++this.shown;
    replaceChildren(this.repositories);
    if (shown) {
      shown
        .model()
        .then((model) => repositoriesOf(modelFile(model)))
        .then(
          (repos) =>
            ticket === this.shown &&
            replaceChildren(
              this.repositories,
              repos.map(({ key, repo, base }) =>
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'button small',
                    title: `${base} (from ${key})`,
                    dataset: { action: 'upstream-fetch', repo },
                    onclick: () => this.#fetch(base),
                  },
                  'Fetch from ',
                  h('code', {}, repo),
                ),
              ),
            ),
          () => {}, // no repositories to offer: the files can still be given, and a check says what fails
        );
    }
    this.panel.hidden = false;
    this.panel.scrollIntoView({ block: 'nearest' });
  }

  /** Closes the panel and forgets the files and the check (the open model changed, or the user closed it). */
  close() {
    this.checked++;
    this.files.clear();
    this.panel.hidden = true;
    this.panel.removeAttribute('data-state');
    this.given.textContent = '';
    this.status.textContent = '';
    replaceChildren(this.body);
  }

  /**
   * Takes upstream files, dropped or picked: each recognised by its name, added to those given
   * before (a file of the same name replaces the earlier one); checks once config.json is there.
   */
  take(files) {
    const names = new Map(UPSTREAM_FILES);
    const unknown = files.filter((f) => !names.has(f.name));
    for (const f of files) if (names.has(f.name)) this.files.set(f.name, f);
    if (this.panel.hidden) this.show();
    this.given.textContent = this.files.size ? `Files given: ${[...this.files.keys()].join(', ')}.` : '';
    if (unknown.length)
      return this.#fail(
        `not an upstream file: ${unknown.map((f) => f.name).join(', ')} (expected ${UPSTREAM_FILES.map(([n]) => n).join(', ')})`,
      );
    if (!this.files.has('config.json')) {
      this.panel.dataset.state = 'waiting';
      this.status.textContent = 'Add config.json (the others are optional) to check this file.';
      return;
    }
    const source = Object.fromEntries(
      UPSTREAM_FILES.filter(([n]) => this.files.has(n)).map(([n, field]) => [field, this.files.get(n)]),
    );
    this.#run(source, 'the files given', 'Reading the header and the files given…');
  }

  /** Fetches the upstream files from `base` — the user asked — and checks the model against them. */
  async #fetch(base) {
    const ticket = ++this.checked;
    this.panel.dataset.state = 'loading';
    this.status.textContent = `Fetching the configuration from ${base}…`;
    replaceChildren(this.body);
    try {
      const texts = await fetchUpstream(base);
      if (ticket === this.checked) this.#run(texts, base, 'Reading the header…');
    } catch (e) {
      if (ticket === this.checked) this.#fail(e.message ?? String(e));
    }
  }

  async #run(source, sourceName, message) {
    const ticket = ++this.checked;
    const shown = this.current();
    replaceChildren(this.body);
    if (!shown) return this.#fail('open a model first');
    this.panel.dataset.state = 'loading';
    this.status.textContent = message;
    try {
      const doc = await upstream(modelFile(await shown.model()), source, { fileName: shown.name, sourceName });
      const visible = await visibleOf(doc);
      if (ticket !== this.checked) return;
      this.status.textContent = '';
      this.panel.dataset.state = 'ready';
      this.panel.dataset.differences = String(doc.differences);
      renderDocument(this.body, doc, visible, this.onFix);
    } catch (e) {
      if (ticket === this.checked) this.#fail(e.message ?? String(e));
    }
  }

  #fail(message) {
    this.panel.dataset.state = 'error';
    this.status.textContent = `Cannot compare with upstream: ${message}`;
  }
}

/** The file to check of the model shown (an OpenedModel): of a split model's shards the first (it has the metadata). */
export function modelFile({ files }) {
  return files.find((f) => /-0*1-of-\d+\.gguf$/i.test(f.name ?? '')) ?? files[0];
}

/**
 * The function giving each text `doc` shows in its visible form (gguf_core::tokenizer::visible),
 * the forms asked of the upstream module at once, for every text the view draws.
 */
async function visibleOf(doc) {
  const texts = new Set([doc.source]);
  for (const c of doc.checks) {
    for (const text of [c.gguf_key, c.upstream_key, c.note]) if (typeof text === 'string') texts.add(text);
    if (c.fix) texts.add(fixArgument(c.fix));
    // A value is shown cut (value()): only what can be shown crosses, not a 16 MiB template.
    for (const text of [c.gguf, c.upstream]) if (typeof text === 'string') texts.add(shownPart(text));
    for (const hunk of c.diff?.hunks ?? []) for (const line of hunk.lines) texts.add(line.slice(1));
  }
  const list = [...texts];
  const shown = new Map((await visibleText(list)).map((text, i) => [list[i], text]));
  return (text) => shown.get(text) ?? text;
}

/**
 * Draws `doc` (`ggufscope upstream --json`'s document): the verdict, the files checked and not,
 * the differences with their fixes, every field.
 */
function renderDocument(root, doc, visible, onFix) {
  const differences = doc.checks.filter((c) => c.status === 'differs' || c.status === 'missing-in-gguf');
  const same = doc.checks.filter((c) => c.status === 'same').length;
  const verdict =
    doc.differences === 0
      ? h(
          'p',
          { class: 'compare-verdict same', dataset: { field: 'upstream-differences', value: 0 } },
          `No differences: this file agrees with upstream on ${grouped(same)} field${same === 1 ? '' : 's'}.`,
        )
      : h(
          'p',
          { class: 'compare-verdict', dataset: { field: 'upstream-differences', value: doc.differences } },
          `${grouped(doc.differences)} difference${doc.differences === 1 ? '' : 's'} from upstream.`,
        );
  replaceChildren(
    root,
    verdict,
    h(
      'p',
      { class: 'note' },
      'Upstream: ',
      h('span', { class: 'compare-key' }, visible(doc.source)),
      '. Checked against ',
      h('span', { dataset: { field: 'upstream-read' } }, doc.read.join(', ')),
      '.',
      doc.not_read.length > 0 && [
        ' Not given: ',
        h('span', { dataset: { field: 'upstream-not-read' } }, doc.not_read.join(', ')),
        ': what only they hold is not checked.',
      ],
    ),
    differences.length > 0 &&
      h(
        'section',
        { class: 'compare-section' },
        h('h3', {}, 'Differences'),
        h(
          'ul',
          { class: 'upstream-differences', dataset: { field: 'upstream-difference-list' } },
          differences.map((c) => difference(c, visible, onFix)),
        ),
      ),
    h(
      'section',
      { class: 'compare-section' },
      h('h3', {}, 'Every field', h('span', { class: 'count' }, grouped(doc.checks.length))),
      checksTable(doc.checks, visible),
    ),
  );
}

/**
 * One difference: both values with their keys, what it means for inference, a note, a template's
 * diff, and its fix — the `ggufscope edit` argument, and a button that opens Edit with it.
 */
function difference(c, visible, onFix) {
  return h(
    'li',
    { class: 'upstream-difference', dataset: { check: c.field, status: c.status } },
    h('h4', {}, h('code', {}, c.field), ' ', badge(c.status)),
    h(
      'dl',
      { class: 'upstream-values' },
      h(
        'div',
        {},
        h('dt', {}, 'This file'),
        h('dd', {}, value(c.gguf, visible), ' ', h('span', { class: 'muted' }, visible(c.gguf_key))),
      ),
      h(
        'div',
        {},
        h('dt', {}, 'Upstream'),
        h('dd', {}, value(c.upstream, visible), ' ', h('span', { class: 'muted' }, visible(c.upstream_key))),
      ),
      h('div', {}, h('dt', {}, 'What it means'), h('dd', { dataset: { field: 'upstream-impact' } }, c.impact)),
      c.note && h('div', {}, h('dt', {}, 'Note'), h('dd', {}, visible(c.note))),
      c.fix && fixRow(c.fix, visible, onFix),
    ),
    c.diff && lineDiff(c.diff, visible),
  );
}

/** The `ggufscope edit` argument of a fix; for a template inside tokenizer_config.json, what to do. */
function fixArgument(fix) {
  return fix.argument ?? `--set-file ${fix.key}=FILE (upstream's template saved to a file)`;
}

/** A fix: the command line's argument and the button that fills Edit with it. */
function fixRow(fix, visible, onFix) {
  const argument = fixArgument(fix);
  return h(
    'div',
    {},
    h('dt', {}, 'Fix'),
    h(
      'dd',
      { class: 'upstream-fix' },
      h('code', { class: 'compare-key', dataset: { field: 'upstream-fix' } }, `ggufscope edit … ${visible(argument)}`),
      onFix &&
        h(
          'button',
          {
            type: 'button',
            class: 'button small',
            dataset: { action: 'upstream-fix', key: fix.key },
            'aria-label': `Fix in Edit: ${fix.key}`,
            onclick: () => onFix({ key: fix.key, value: fix.value, type: fix.type }),
          },
          'Fix in Edit',
        ),
    ),
  );
}

function badge(status) {
  return h(
    'span',
    {
      class: `badge ${status === 'same' ? 'same' : status === 'missing-upstream' ? 'muted-badge' : 'differs'}`,
      dataset: { status },
    },
    STATUS_TEXT[status] ?? status,
  );
}

/** Every check, one row each, in the document's order. */
function checksTable(checks, visible) {
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Every field compared with upstream' },
    h(
      'table',
      { class: 'data upstream-checks', dataset: { field: 'upstream-checks' } },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Field', 'Status', 'This file', 'Upstream', 'GGUF key', 'Upstream key'].map((t) =>
            h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        checks.map((c) =>
          h(
            'tr',
            { dataset: { check: c.field, status: c.status } },
            h('th', { scope: 'row' }, h('code', {}, c.field)),
            h('td', {}, badge(c.status)),
            h('td', {}, value(c.gguf, visible)),
            h('td', {}, value(c.upstream, visible)),
            h('td', {}, h('code', { class: 'compare-key' }, visible(c.gguf_key))),
            h('td', {}, h('code', { class: 'compare-key' }, visible(c.upstream_key))),
          ),
        ),
      ),
    ),
  );
}

/**
 * The start of a string value that {@link value} can show: one character more than it shows, so
 * that a longer text's visible form is still cut (a character's visible form is never shorter).
 */
function shownPart(text) {
  return text.length > VALUE_CUT ? text.slice(0, VALUE_CUT + 1) : text;
}

/** A JSON value on one line: strings quoted in their visible form (escapes set apart), cut; null as absent. */
function value(v, visible) {
  if (v === null || v === undefined) return h('span', { class: 'muted' }, '(absent)');
  if (typeof v === 'string') {
    const text = visible(shownPart(v));
    return tokenText(text.length > VALUE_CUT ? `"${text.slice(0, VALUE_CUT)}…"` : `"${text}"`);
  }
  return h(
    'code',
    {},
    JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? Number(x) : x)),
  );
}

/** A template's line diff (`-` this file's lines, `+` upstream's), drawn a step at a time. */
function lineDiff(diff, visible) {
  const lines = diff.hunks.flatMap((hunk) => [
    {
      op: 'same',
      text: `@@ this file line ${grouped(hunk.gguf_line)}, upstream line ${grouped(hunk.upstream_line)} @@`,
    },
    ...hunk.lines.map((line) => ({
      op: line[0] === '+' ? 'added' : line[0] === '-' ? 'removed' : 'same',
      text: `${line[0]} ${visible(line.slice(1))}`,
    })),
  ]);
  const list = h('div', {
    class: 'line-diff',
    dataset: { field: 'upstream-lines' },
    tabindex: 0,
    role: 'region',
    'aria-label': 'Chat template lines: − this file, + upstream',
  });
  let shown = 0;
  const more = h('button', { type: 'button', class: 'button small', dataset: { action: 'show-more' } });
  const step = () => {
    list.append(...lines.slice(shown, shown + STEP).map(({ op, text }) => h('div', { class: `diff-${op}` }, text)));
    shown = Math.min(shown + STEP, lines.length);
    more.textContent = `Show more (${grouped(lines.length - shown)} lines left)`;
    more.hidden = shown === lines.length;
  };
  more.addEventListener('click', step);
  step();
  return h(
    'div',
    {},
    h('p', { class: 'note' }, "− this file's template, + upstream's:"),
    list,
    more,
    !diff.complete &&
      h('p', { class: 'note' }, 'The diff is cut here: the templates differ in too many lines to show them all.'),
  );
}
