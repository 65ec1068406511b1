// The viewer itself: the file line, progress, error panel and the panels of one model, built into
// any container — the page's <main>, or a <gguf-viewer> element's shadow root — so the page and
// the embeddable element are the same code. It asks a GgufClient (the worker) for the header and
// hands the report to the views. No globals: every element is found through the object.

import { Cancelled, ParserFailure } from './web/gguf-client.js';
import { fileNameOf } from './web/http-blob.js';
import { h, replaceChildren } from './dom.js';
import { bytes, grouped, hex } from './format.js';
import { renderSummary, showDescription } from './summary-view.js';
import { renderFindings } from './findings-view.js';
import { renderTypeMix } from './type-mix-view.js';
import { renderMetadata } from './metadata-view.js';
import { renderTensors } from './tensor-view.js';
import { renderShards } from './shards-view.js';
import { tensorPeekView } from './tensor-peek-view.js';
import { renderMemory } from './memory-view.js';
import { renderMaps } from './maps-view.js';
import { renderTokenizer } from './tokenizer-view.js';
import { renderTokenize } from './tokenize-view.js';
import { renderChatTemplates, templateFacts } from './template-view.js';
import { EditMode } from './edit-view.js';
import { CompareView } from './compare-view.js';
import { UpstreamView, modelFile } from './upstream-view.js';

/**
 * How long a header read goes on before the page shows its progress bar and figures. Most headers
 * are read in a few frames: drawing progress for them would only slow the read down (the page, the
 * browser and the parser share the machine's cores; on two, a progress bar animated over a long
 * page made a 6.5 MB header's read 1.7× slower), and a bar that flashes for a frame tells nothing.
 */
const PROGRESS_DELAY_MS = 200;
/** Once shown, the figures change at most this often: at a pace they can be read. */
const PROGRESS_EVERY_MS = 100;

/**
 * The name to show for what is opened: a file's name; of several, the first and how many more.
 * @param {import('./web/protocol.js').NamedBlob|import('./web/protocol.js').NamedBlob[]|{url: URL}} source
 */
function nameOf(source) {
  if (source instanceof Blob) return source.name ?? 'blob';
  if (!Array.isArray(source)) return fileNameOf(source.url);
  return manyNamed(source.map((f) => f.name ?? 'blob').sort());
}

function manyNamed(names) {
  return names.length === 1 ? names[0] : `${names[0]} (+${names.length - 1} more)`;
}

/**
 * The name of a split model once read: its first shard read and how many more, so that a file
 * picked with the shards but left out (not one of them) never names the model.
 */
function splitName(split) {
  return manyNamed([...split.shards].sort((a, b) => a.number - b.number).map((s) => s.file ?? 'blob'));
}

/**
 * A titled panel with an id (`panel-…`, from the title) one can link to; `extra` goes beside the
 * title (a filter box, say). With `link`, the title is itself a link to the panel.
 */
function panel(title, count, body, { extra = null, link = false } = {}) {
  const id = `panel-${title
    .toLowerCase()
    .replace(/[^a-z]+/g, '-')
    .replace(/^-|-$/g, '')}`;
  const heading = h(
    'h2',
    { id: `${id}-title` },
    link ? h('a', { class: 'anchor', href: `#${id}` }, title) : title,
    count && ' ',
    count,
  );
  const head = h('div', { class: 'panel-head' }, heading);
  if (extra) head.append(extra);
  return h('section', { class: 'panel', id, 'aria-labelledby': heading.id }, head, body);
}

export class Viewer {
  /**
   * @param {HTMLElement|ShadowRoot} root  Where the viewer is built.
   * @param {object} options
   * @param {import('./web/gguf-client.js').GgufClient} options.client
   * @param {HTMLElement} options.host  Carries `data-state` (loading|ready|error) and `data-file`,
   *   the hooks people, tests and the benchmark wait on.
   * @param {string|null} [options.measure]  Name of the open-to-summary performance measure (the
   *   page's "summary"); null records none, so an embedding page's timeline stays its own.
   * @param {boolean} [options.editable]  Offers an Edit mode on the metadata table (edit-view.js):
   *   the page does; the embeddable element does not.
   * @param {boolean} [options.comparable]  Offers "Compare with…" another file (compare-view.js)
   *   and "Compare with upstream" (upstream-view.js): the page does; the embeddable element does not.
   * @param {boolean} [options.standalone]  The viewer is the whole page: it names the open file in
   *   `document.title`, its panel titles are links to them, and its errors say another file can be
   *   opened (the page has the controls). An embedded viewer leaves its host page's title alone.
   */
  constructor(root, { client, host, measure = null, editable = false, comparable = false, standalone = false }) {
    this.standalone = standalone;
    this.client = client;
    // The model shown, for the panels that work on it in another worker: its files with the
    // headers already read (GgufClient#opened), so that none is read again.
    const current = () =>
      this.host.dataset.state === 'ready'
        ? { source: this.source, name: this.host.dataset.file, report: this.report, model: () => this.client.opened() }
        : null;
    this.compareView = comparable ? new CompareView({ current }) : null;
    // A difference's fix opens Edit with the change filled in.
    const onFix = editable ? (fix) => this.editMode.propose(fix) : null;
    this.upstreamView = comparable ? new UpstreamView({ current, onFix }) : null;
    this.editMode = editable
      ? new EditMode({
          openBlob: (blob, name) =>
            this.open(blob, {
              name,
              note: 'This is the file just saved, opened from memory: nothing was written but the download.',
            }),
        })
      : null;
    this.host = host;
    this.measure = measure;
    this.opened = 0; // files opened so far: a late frame of an earlier one must not paint
    this.fileName = h('h1', { id: 'file-name', dataset: { field: 'file_name' } });
    this.note = h('p', { id: 'sample-note', class: 'note', hidden: true });
    this.readNotes = h('ul', { id: 'read-notes', class: 'read-notes', hidden: true });
    this.status = h('div', { id: 'status', class: 'status' });
    this.progress = h('div', { id: 'progress', class: 'progress', hidden: true }, h('div', { class: 'progress-bar' }));
    this.errorTitle = h('h2', {});
    this.errorMessage = h('p', { class: 'error-message', dataset: { field: 'error_message' } });
    this.errorOffset = h('code', { dataset: { field: 'error_offset' } });
    this.error = h(
      'section',
      { id: 'error', class: 'error-panel', role: 'alert', hidden: true },
      this.errorTitle,
      this.errorMessage,
      h('p', { class: 'error-where' }, 'At byte offset ', this.errorOffset),
      standalone && h('p', { class: 'note' }, 'Open another file whenever you like: the viewer is ready.'),
    );
    this.summary = h('section', { id: 'summary', class: 'cards', 'aria-label': 'Summary' });
    this.shardsCount = h('span', { class: 'count', id: 'shards-count' });
    this.shards = h('div', { id: 'shards' });
    const link = standalone;
    this.shardsPanel = panel('Shards', this.shardsCount, this.shards, { link });
    this.findingsCount = h('span', { class: 'count', id: 'findings-count' });
    this.findings = h('div', { id: 'findings' });
    this.typeMix = h('div', { id: 'type-mix' });
    this.memory = h('div', { id: 'memory' });
    this.description = h('section', {
      id: 'description',
      class: 'cards',
      dataset: { field: 'description' },
      'aria-label': 'What the file holds and can do',
    });
    this.maps = h('div', { id: 'maps' });
    this.tokenizer = h('div', { id: 'tokenizer' });
    this.tokenize = h('div', { id: 'tokenize' });
    this.chatTemplates = h('div', { id: 'chat-templates' });
    this.metadataCount = h('span', { class: 'count', id: 'metadata-count' });
    this.metadata = h('div', { id: 'metadata' });
    this.tensorCount = h('span', { class: 'count', id: 'tensor-count' });
    this.tensorFilter = h('input', {
      type: 'search',
      id: 'tensor-filter',
      placeholder: 'Filter by name or type',
      'aria-label': 'Filter tensors',
    });
    this.tensors = h('div', { id: 'tensors' });
    // The panels under the summary: hidden while only the summary is shown (they still hold
    // the model before).
    this.panels = [
      panel('Will it fit', null, this.memory, { link }),
      this.description,
      panel('Checks:', this.findingsCount, this.findings, { link }),
      panel('Tokenizer', null, this.tokenizer, { link }),
      panel('Tokenize', null, this.tokenize, { link }),
      panel('Chat template', null, this.chatTemplates, { link }),
      panel('Tensor types', null, this.typeMix, { link }),
      panel('Layers and layout', null, this.maps, { link }),
      panel('Metadata', this.metadataCount, [this.editMode?.panel, this.metadata], {
        extra: this.editMode?.toggle,
        link,
      }),
      panel('Tensors', this.tensorCount, this.tensors, { extra: this.tensorFilter, link }),
    ];
    this.view = h('div', { id: 'view', hidden: true }, this.summary, this.shardsPanel, this.panels);
    root.append(
      h(
        'section',
        { class: 'file-line', 'aria-live': 'polite' },
        h('div', { class: 'file-title' }, this.fileName, this.note, this.readNotes),
        h('div', { class: 'file-actions' }, this.status, this.compareView?.button, this.upstreamView?.button),
      ),
      this.progress,
      this.error,
      // Only the page compares (append() would write an absent panel as the text "undefined").
      ...[this.compareView?.panel, this.upstreamView?.panel].filter(Boolean),
      this.view,
    );
  }

  /**
   * Opens a File or Blob, several (the shards of a split model), or `{url}` (read with HTTP
   * Range requests, with its sibling shards), and shows the model under `name` (the file's name
   * unless given); `note` is a line under the name (e.g. "this is the built-in sample"). Resolves
   * the report, or null when the file cannot be read (the error is shown) or another was opened
   * meanwhile — or when the user keeps unsaved edits rather than open another (they are asked).
   */
  async open(source, { name = nameOf(source), note = null } = {}) {
    const unsaved = this.editMode?.unsaved();
    if (
      unsaved &&
      !globalThis.confirm(
        `${unsaved} unsaved change${unsaved === 1 ? '' : 's'} to ${this.host.dataset.file} will be lost. Open ${name} anyway?`,
      )
    )
      return null;
    const ticket = ++this.opened;
    const started = performance.now();
    if (this.measure) {
      performance.clearMarks(`${this.measure}:open`);
      performance.clearMeasures(this.measure);
      performance.mark(`${this.measure}:open`);
    }
    this.#setState('loading', name);
    this.compareView?.close(); // it compared the model shown until now
    this.upstreamView?.close();
    this.source = source;
    replaceChildren(this.fileName, name); // a file's name can hide characters too (dom.js)
    this.note.textContent = note ?? '';
    this.note.hidden = !note;
    this.error.hidden = true;
    this.readNotes.hidden = true;
    this.view.hidden = true; // the model shown until now is not this file's
    this.progress.hidden = true;
    this.status.textContent = 'Reading the header…';
    // Progress shows once the read has taken a while, and changes at a reading pace.
    let progressAt = started + PROGRESS_DELAY_MS;
    const showProgress = setTimeout(() => ticket === this.opened && (this.progress.hidden = false), PROGRESS_DELAY_MS);
    const onProgress = (p) => {
      const now = performance.now();
      if (now < progressAt) return;
      progressAt = now + PROGRESS_EVERY_MS;
      this.status.textContent = `Reading the header… ${bytes(p.bytesRead)} read`;
    };
    let painted = null; // the summary's paint, when it came before the report
    const onSummary = (summary, stats) => {
      if (this.measure) performance.mark(`${this.measure}:received`);
      clearTimeout(showProgress);
      if (ticket === this.opened) painted = this.#showSummary(summary, stats, started, ticket);
    };
    try {
      const files = Array.isArray(source) || source instanceof Blob;
      const { report, stats } = files
        ? await this.client.open(source, onProgress, onSummary)
        : await this.client.openUrl(source.url, onProgress, onSummary);
      if (ticket === this.opened) this.report = report; // for the upstream check's repositories
      await painted;
      await this.#show(report, stats, started, ticket, painted !== null);
      return ticket === this.opened ? report : null;
    } catch (e) {
      if (e instanceof Cancelled) return null;
      this.fail(e, name);
      return null;
    } finally {
      clearTimeout(showProgress);
    }
  }

  /**
   * Shows a ParseError (the file is wrong at an offset), a ParserFailure (the file made the parser
   * fail; `data-kind` on the panel says how) or any failure, and leaves the viewer ready for the
   * next file. `data-code` is the error's code (docs/json.md, "Errors"), empty for a bug.
   * @returns {undefined}
   */
  fail(error, name = this.host.dataset.file) {
    this.progress.hidden = true;
    this.view.hidden = true;
    this.status.textContent = '';
    this.error.hidden = false;
    const failure = error instanceof ParserFailure;
    this.error.dataset.kind = failure ? error.code : 'file';
    this.error.dataset.code = error?.code ?? '';
    this.errorTitle.textContent = failure ? 'The parser was stopped on this file' : 'This file cannot be read';
    replaceChildren(this.errorMessage, error.message ?? String(error));
    const offset = error.offset ?? null;
    this.errorOffset.dataset.value = offset ?? '';
    replaceChildren(this.errorOffset, offset === null ? 'unknown' : `${hex(offset)} (${grouped(offset)})`);
    this.errorOffset.closest('p').hidden = offset === null;
    this.#setState('error', name);
  }

  /**
   * Shows the summary cards alone (the panels under them are hidden until the report comes), and
   * resolves once they are painted.
   */
  #showSummary(summary, stats, started, ticket) {
    this.progress.hidden = true;
    this.view.hidden = false;
    for (const p of this.panels) p.hidden = true;
    this.shardsPanel.hidden = true;
    renderSummary(this.summary, summary, stats);
    return new Promise((resolve) =>
      requestAnimationFrame(() => {
        if (ticket === this.opened) this.#painted(stats, started);
        resolve(undefined);
      }),
    );
  }

  /** Records the open-to-summary measure and says how the header was read. */
  #painted(stats, started) {
    if (this.measure) performance.measure(this.measure, `${this.measure}:open`);
    const ms = performance.now() - started;
    this.status.textContent = `Header read in ${Math.round(ms)} ms: ${bytes(stats.bytesRead)} in ${stats.reads} read${stats.reads === 1 ? '' : 's'}, of ${bytes(stats.fileSize)}`;
  }

  /**
   * Shows the model: the summary first, unless `summaryShown` (the worker sent it before the
   * report); the panels, which can be long, follow in the next frame.
   */
  #show(report, stats, started, ticket, summaryShown) {
    if (ticket !== this.opened) return; // another file was opened meanwhile
    this.progress.hidden = true;
    this.view.hidden = false;
    if (!summaryShown) renderSummary(this.summary, report, stats);
    replaceChildren(
      this.readNotes,
      (stats.notes ?? []).map((note) => h('li', {}, note)),
    );
    this.readNotes.hidden = !stats.notes?.length;
    this.shardsPanel.hidden = !report.split;
    if (report.split) {
      this.shardsCount.textContent = renderShards(this.shards, report.split);
      if (Array.isArray(this.source)) this.fileName.textContent = this.host.dataset.file = splitName(report.split);
    }
    // The panels ask the worker for more; if it fails meanwhile, the model is gone with it.
    const ask = (answer) =>
      answer.catch((e) => {
        if (e instanceof ParserFailure && ticket === this.opened) this.fail(e);
        throw e;
      });
    return new Promise((resolve) =>
      requestAnimationFrame(() => {
        if (ticket !== this.opened) return resolve(undefined); // another file was opened meanwhile
        if (!summaryShown) this.#painted(stats, started);
        for (const p of this.panels) p.hidden = false;
        renderTypeMix(this.typeMix, report.type_mix);
        showDescription(this.description, undefined);
        ask(this.client.describe()).then(
          (d) => ticket === this.opened && showDescription(this.description, d),
          () => ticket === this.opened && showDescription(this.description, null),
        );
        renderMemory(
          this.memory,
          report,
          (options) => ask(this.client.fit(options)),
          (options, devices) => ask(this.client.plan(options, devices)),
        );
        this.metadataCount.textContent = grouped(report.kv_count);
        const metadata = renderMetadata(this.metadata, report.metadata, (kv, start, count) =>
          ask(this.client.arrayPage(kv, start, count)),
        );
        const tokenizer = ask(this.client.tokenizer());
        // What the template views need of the file (bos and eos texts, the template lint), asked
        // of the template engine on the first preview or template shown.
        const facts = (this.templateFacts = templateFacts(() => ask(this.client.opened()).then(modelFile)));
        const tools = {
          tokenizer,
          jinjaSpans: (text) => ask(this.client.jinjaSpans(text)),
          splitSpecial: (text) => ask(this.client.splitSpecial(text)),
          chatTokens: facts.chat,
          tokenizePrompt: (text) => ask(this.client.tokenizePrompt(text)),
        };
        this.editMode?.attach({
          entries: report.metadata,
          table: this.metadata,
          source: this.source,
          report,
          name: this.host.dataset.file,
          tools,
          model: () => ask(this.client.opened()),
        });
        const peekView = (tensor) =>
          tensorPeekView(tensor, {
            peek: (index, options) => ask(this.client.tensorPeek(index, options)),
            stop: () => this.client.stopPeek(),
          });
        const tensors = renderTensors(this.tensors, this.tensorFilter, this.tensorCount, report.tensors, { peekView });
        const found = renderFindings(this.findings, report.findings, report.findings_omitted, (subject) =>
          (subject.kind === 'kv' ? metadata : tensors).reveal(subject.index),
        );
        this.findingsCount.textContent = found.text;
        Object.assign(this.findingsCount.dataset, found.counts);
        renderMaps(this.maps, report, {
          onTensor: (index) => tensors.reveal(index),
          onLayer: (prefix) => (tensors.filterTo(prefix), this.tensors.scrollIntoView()),
        });
        this.#showTokenizer(report, tokenizer, ticket, ask);
        this.#setState('ready', this.host.dataset.file);
        resolve(undefined);
      }),
    );
  }

  /** The tokenizer and chat template panels, from the worker's tokenizer report (it comes after the header). */
  #showTokenizer(report, tokenizerReport, ticket, ask) {
    replaceChildren(this.tokenizer, h('p', { class: 'note' }, 'Reading the tokenizer…'));
    replaceChildren(this.tokenize);
    replaceChildren(this.chatTemplates);
    tokenizerReport.then(
      (tokenizer) => {
        if (ticket !== this.opened) return;
        renderTokenizer(this.tokenizer, tokenizer, (query, start, count, exactCase) =>
          ask(this.client.tokens(query, start, count, exactCase)),
        );
        renderTokenize(this.tokenize, tokenizer, (text, options) => ask(this.client.tokenize(text, options)));
        // The templates' Jinja tokens come from the worker too (the core's lexer): the templates
        // are drawn once they are there, never unhighlighted first.
        Promise.all(tokenizer.chat_templates.map((t) => ask(this.client.jinjaSpans(t.text)))).then(
          (highlights) => {
            if (ticket !== this.opened) return;
            renderChatTemplates(
              this.chatTemplates,
              tokenizer,
              report.findings,
              highlights,
              {
                chatTokens: this.templateFacts.chat,
                tokenizePrompt: (text) => ask(this.client.tokenizePrompt(text)),
                splitSpecial: (text) => ask(this.client.splitSpecial(text)),
              },
              this.templateFacts.lint,
            );
          },
          () => {},
        );
      },
      () => {},
    ); // another file was opened (its panels follow), or the parser failed (said above)
  }

  #setState(state, name) {
    // Compare and Upstream work on the model shown: offered only while one is.
    for (const button of [this.compareView?.button, this.upstreamView?.button])
      if (button) button.hidden = state !== 'ready';
    this.host.dataset.state = state;
    this.host.dataset.file = name;
    if (this.standalone) document.title = `${name} — ggufscope`;
  }
}
