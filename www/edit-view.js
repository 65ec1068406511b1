// Edit mode on the metadata table: change a value in place (typed: numbers, booleans, strings; a
// small array element by element, any array as a whole from pasted JSON or a file), add a key,
// delete a key; the chat template in an editor with the template view's numbered, highlighted
// lines, the checks and the preview following the typing (template-editor.js). Every change is
// checked as it is made (the edit module's `editSession`: refusals and new findings, all at once)
// and waits in a pending list (old → new, each can be undone and redone) until Save, which
// calls `editWithChanges(file, edits)` (web/edit.js): it reads the header only, builds the new file
// as `new Blob([newHeader, file.slice(oldDataOffset)])` — the tensor data is never read or copied —
// and reads the new header back to prove it. The Blob is downloaded as NAME.edited.gguf, or written
// where the user chooses (File System Access API, where there is one). Nothing is uploaded.
//
// Hooks for people and tests: `data-action` on every control (edit, change, delete-key, apply,
// cancel, add-key, undo, redo, save, save-as, cancel-save, open-saved, add-element,
// remove-element, as-json, as-elements, load-json), `data-field` on inputs and results.

import { h, replaceChildren } from './dom.js';
import { bytes, grouped } from './format.js';
import { fileNameOf } from './web/http-blob.js';
import { RELOAD_FOR_UPDATE } from './web/protocol.js';
import { templateEditor } from './template-editor.js';

const SCALARS = [
  'UINT8',
  'INT8',
  'UINT16',
  'INT16',
  'UINT32',
  'INT32',
  'UINT64',
  'INT64',
  'FLOAT32',
  'FLOAT64',
  'BOOL',
  'STRING',
];
const TYPES = [...SCALARS, ...SCALARS.map((t) => `ARRAY[${t}]`)];
const SHOW_AT = 120;
/** Save to… writes the new file in slices of this many bytes (each a progress step). */
const WRITE_SLICE = 64 << 20;

/** A type of the report's metadata entry as the type select names it: `UINT32`, `ARRAY[STRING]`. */
function typeName(entry) {
  return entry.type === 'ARRAY' ? `ARRAY[${entry.value.element_type}]` : entry.type;
}

/** The CLI's spelling of a type (`u32`, `f32`, `bool`, `str`, `arr[u32]`) as the type select names it. */
function typeOfCli(type) {
  const short = { u8: 'UINT8', i8: 'INT8', u16: 'UINT16', i16: 'INT16', u32: 'UINT32', i32: 'INT32' };
  Object.assign(short, { u64: 'UINT64', i64: 'INT64', f32: 'FLOAT32', f64: 'FLOAT64', bool: 'BOOL', str: 'STRING' });
  const array = /^arr\[(.+)\]$/.exec(type);
  return array ? `ARRAY[${short[array[1]] ?? array[1].toUpperCase()}]` : (short[type] ?? type.toUpperCase());
}

/** The `type` an edit gives for a type select's name. */
function editType(name) {
  const array = /^ARRAY\[(.+)\]$/.exec(name);
  return array ? { type: 'ARRAY', element_type: array[1] } : name;
}

/** A value, short, for the pending list. */
function shortText(value) {
  let text = typeof value === 'string' ? JSON.stringify(value) : Array.isArray(value) ? jsonText(value) : String(value);
  if (text.length > SHOW_AT) text = `${text.slice(0, SHOW_AT)}… (${grouped(text.length)} characters)`;
  return text;
}

/** A new value of type `name`, short: a string quoted, a number as typed. */
function newText(value, name) {
  return name === 'STRING' || typeof value !== 'string' ? shortText(value) : shortText(value).slice(1, -1);
}

/** The report's value of `entry`, short. */
function oldText(entry) {
  if (entry.type === 'ARRAY') {
    const { element_type: type, len, head } = entry.value;
    return `[${type} × ${grouped(len)}${len ? `: ${shortText(head).slice(1, -1)}${len > head.length ? ', …' : ''}` : ''}]`;
  }
  return shortText(entry.value);
}

/** The name a saved copy of `name` is given: model.gguf (or model.edited.gguf) → model.edited.gguf. */
export function editedName(name) {
  return `${name.replace(/(\.edited)?\.gguf$/i, '')}.edited.gguf`;
}

let ids = 0;

/**
 * A value input for GGUF type `name` (`UINT32`, `STRING`, `ARRAY[FLOAT32]`), labelled `label`,
 * holding `initial` when given. Returns `{node, read()}`: `read()` gives the edit's value or throws
 * an Error saying what is wrong with the text.
 */
function valueInput(name, label, initial, { multiline = false } = {}) {
  const id = `edit-value-${++ids}`;
  const labelNode = h('label', { for: id }, label);
  if (name === 'BOOL') {
    const select = h(
      'select',
      { id, dataset: { field: 'edit-value' } },
      h('option', { value: 'true' }, 'true'),
      h('option', { value: 'false' }, 'false'),
    );
    if (initial !== undefined) select.value = String(initial);
    return { node: [labelNode, select], focus: select, read: () => select.value === 'true' };
  }
  if (name.startsWith('ARRAY')) return arrayInput(name.slice(6, -1), labelNode, id, initial);
  if (name === 'STRING' && multiline) {
    const area = h('textarea', { id, rows: 12, spellcheck: 'false', dataset: { field: 'edit-value' } });
    if (initial !== undefined) area.value = initial;
    return { node: [labelNode, area], focus: area, read: () => area.value };
  }
  const numeric = name !== 'STRING';
  const input = h('input', {
    id,
    type: 'text',
    spellcheck: 'false',
    inputmode: numeric ? (/FLOAT/.test(name) ? 'decimal' : 'numeric') : null,
    dataset: { field: 'edit-value' },
  });
  if (initial !== undefined) input.value = String(initial);
  const read = () => {
    if (numeric && input.value.trim() === '') throw new Error('a number is needed');
    return numeric ? input.value.trim() : input.value;
  };
  return { node: [labelNode, input], focus: input, read };
}

/** Arrays of at most this many elements, known whole, are edited element by element. */
const ELEMENTS_AT_MOST = 64;

/**
 * An array input, elements of type `type`: element by element (for a small array known whole), or
 * as JSON (pasted, or loaded from a file), switchable. `read()` gives the array.
 */
function arrayInput(type, labelNode, id, initial) {
  const area = h('textarea', {
    id,
    rows: 4,
    spellcheck: 'false',
    dataset: { field: 'edit-value' },
    placeholder: '[1, 2, 3] — a JSON array',
  });
  if (initial !== undefined) area.value = jsonText(initial);
  const file = h('input', {
    type: 'file',
    accept: '.json,.txt,application/json,text/plain',
    hidden: true,
    dataset: { field: 'json-file' },
  });
  const load = h(
    'button',
    { type: 'button', class: 'button small', dataset: { action: 'load-json' } },
    'Load JSON from a file…',
  );
  const loaded = h('span', { class: 'muted', 'aria-live': 'polite' });
  load.addEventListener('click', () => file.click());
  file.addEventListener('change', async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    area.value = await chosen.text();
    replaceChildren(loaded, `${chosen.name}: ${grouped(chosen.size)} bytes`);
  });
  const json = h('div', { class: 'edit-json' }, area, h('div', { class: 'edit-buttons' }, load, file, loaded));

  const list = h('ol', { class: 'edit-elements', start: 0, dataset: { field: 'elements' } });
  const element = (value) => {
    const n = list.children.length;
    const input =
      type === 'BOOL'
        ? h(
            'select',
            { 'aria-label': `Element ${n}` },
            h('option', { value: 'true' }, 'true'),
            h('option', { value: 'false' }, 'false'),
          )
        : h('input', {
            type: 'text',
            spellcheck: 'false',
            'aria-label': `Element ${n}`,
            inputmode: type === 'STRING' ? null : /FLOAT/.test(type) ? 'decimal' : 'numeric',
          });
    if (value !== undefined) input.value = String(value);
    const remove = h(
      'button',
      {
        type: 'button',
        class: 'button small',
        'aria-label': `Remove element ${n}`,
        dataset: { action: 'remove-element' },
      },
      'Remove',
    );
    const item = h('li', {}, input, remove);
    remove.addEventListener('click', () => {
      const next = item.nextElementSibling ?? item.previousElementSibling;
      item.remove();
      renumber();
      (next?.querySelector('input, select') ?? add).focus();
    });
    list.append(item);
    return input;
  };
  const renumber = () =>
    [...list.children].forEach((item, i) => {
      item.querySelector('input, select').setAttribute('aria-label', `Element ${i}`);
      item.querySelector('button').setAttribute('aria-label', `Remove element ${i}`);
    });
  const add = h(
    'button',
    { type: 'button', class: 'button small', dataset: { action: 'add-element' } },
    'Add an element',
  );
  add.addEventListener('click', () => element().focus());
  const elements = h('div', { class: 'edit-array' }, list, add);

  const readElements = () =>
    [...list.querySelectorAll('input, select')].map((input, i) => {
      const text = input.value;
      if (type === 'STRING') return text;
      if (type === 'BOOL') return text === 'true';
      const number = text.trim();
      if (/FLOAT/.test(type) ? !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(number) : !/^[+-]?\d+$/.test(number)) {
        throw new Error(
          `element ${i}: ${JSON.stringify(text)} is not ${/FLOAT/.test(type) ? 'a number' : 'an integer'}`,
        );
      }
      const value = Number(number);
      return /FLOAT/.test(type) || Number.isSafeInteger(value) ? value : BigInt(number);
    });
  const readJson = () => {
    let value;
    try {
      // Integers past 2^53 are read exactly, as BigInts, from their source text where the
      // browser gives it.
      /** @type {(key: string, v: any, context?: {source?: string}) => any} */
      const exact = (_, v, context) =>
        Number.isInteger(v) && !Number.isSafeInteger(v) && /^-?\d+$/.test(context?.source ?? '')
          ? BigInt(context.source)
          : v;
      value = JSON.parse(area.value, exact);
    } catch (e) {
      throw new Error(`not JSON: ${e.message}`);
    }
    if (!Array.isArray(value)) throw new Error('not a JSON array: write [ … ]');
    return value;
  };

  let asJson = !(Array.isArray(initial) && initial.length <= ELEMENTS_AT_MOST);
  if (!asJson) initial.forEach((v) => element(v));
  const slot = h('div', { class: 'edit-array-slot' });
  const toggle = h('button', { type: 'button', class: 'button small' });
  const show = () => {
    replaceChildren(slot, asJson ? json : elements);
    toggle.textContent = asJson ? 'Edit element by element' : 'Edit as JSON';
    toggle.dataset.action = asJson ? 'as-elements' : 'as-json';
  };
  toggle.addEventListener('click', () => {
    try {
      if (asJson) {
        const values = readJson();
        if (values.length > ELEMENTS_AT_MOST)
          throw new Error(`${grouped(values.length)} elements: edit an array this long as JSON`);
        replaceChildren(list);
        values.forEach((v) => element(v));
      } else {
        area.value = jsonText(readElements());
      }
      asJson = !asJson;
      slot.parentElement?.querySelector(':scope > .edit-array-alert')?.remove();
      show();
      toggle.focus();
    } catch (e) {
      alertNear(slot, e.message);
    }
  });
  show();
  labelNode.htmlFor = asJson ? id : '';
  return {
    node: [
      h('div', { class: 'edit-fields' }, labelNode, h('span', { class: 'muted' }, `elements: ${type}`), toggle),
      slot,
    ],
    get focus() {
      return asJson ? area : (list.querySelector('input, select') ?? add);
    },
    read: () => (asJson ? readJson() : readElements()),
  };
}

/** A JSON replacer writing BigInts as their digits in a string. */
function jsonSafe(_, v) {
  return typeof v === 'bigint' ? `${v}n` : v;
}

/** An array as JSON text, BigInts as their digits. */
function jsonText(values) {
  return `[${values.map((v) => (typeof v === 'bigint' ? v.toString() : JSON.stringify(v))).join(', ')}]`;
}

/** Says `message` in an alert after `node` (replacing the last one said there). */
function alertNear(node, message) {
  node.parentElement?.querySelector(':scope > .edit-array-alert')?.remove();
  node.after(h('p', { class: 'error-text edit-array-alert', role: 'alert' }, message));
}

/**
 * A model's file that Save writes from: a File or Blob, or the file at a URL with the size it had
 * when opened (`url` tells them apart).
 * @typedef {(import('./web/protocol.js').NamedBlob & {url?: undefined}) | {url: string, size: number, name?: undefined}} SaveSource
 */

/** A type select (labelled), `value` chosen. */
function typeSelect(label, value, { field }) {
  const id = `edit-type-${++ids}`;
  const select = h(
    'select',
    { id, dataset: { field } },
    TYPES.map((t) => h('option', { value: t }, t)),
  );
  select.value = value;
  return { node: [h('label', { for: id }, label), select], select };
}

/** A module imported on demand that could not be: it says so, and what to do (protocol.js). */
const notLoaded = (what) => (e) => {
  throw new Error(`${what} could not be loaded (${RELOAD_FOR_UPDATE})`, { cause: e });
};

export class EditMode {
  /**
   * @param {object} options
   * @param {(blob: Blob, name: string) => void} options.openBlob  Opens a saved file in the viewer.
   * @param {() => Promise<typeof import('./web/edit.js')>} [options.library]  The edit library
   *   (loaded on the first Save).
   */
  constructor({ openBlob, library = () => import('./web/edit.js').catch(notLoaded('the edit library')) }) {
    this.openBlob = openBlob;
    this.library = library;
    this.toggle = h(
      'button',
      { type: 'button', class: 'button small', 'aria-pressed': 'false', dataset: { action: 'edit' } },
      'Edit',
    );
    this.toggle.addEventListener('click', () => this.setEditing(!this.editing));
    this.where = h('p', { class: 'note', dataset: { field: 'edit_where' } });
    this.pendingList = h('ol', { class: 'edit-pending', dataset: { field: 'pending' } });
    this.pendingEmpty = h('p', { class: 'note' }, 'No changes yet: use Change or Delete on a row, or add a key below.');
    this.checkNote = h('div', {
      class: 'edit-checks',
      role: 'status',
      'aria-live': 'polite',
      dataset: { field: 'edit-findings', state: 'none' },
    });
    this.saveButton = h('button', { type: 'button', class: 'button primary', dataset: { action: 'save' } }, 'Save');
    this.saveButton.addEventListener('click', () => this.save('download'));
    this.saveAsButton = h(
      'button',
      {
        type: 'button',
        class: 'button',
        dataset: { action: 'save-as' },
        hidden: typeof globalThis.showSaveFilePicker !== 'function',
      },
      'Save to…',
    );
    this.saveAsButton.addEventListener('click', () => this.save('picker'));
    this.progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Saving' });
    this.status = h('p', { class: 'edit-status', role: 'status', dataset: { field: 'save_status' } });
    this.openSaved = h(
      'button',
      { type: 'button', class: 'button', hidden: true, dataset: { action: 'open-saved' } },
      'Open the saved file',
    );
    this.openSaved.addEventListener('click', () => this.saved && this.openBlob(this.saved.file, this.saved.name));
    this.savedInfo = h('span', { hidden: true, dataset: { field: 'saved', size: '', bytesRead: '' } });
    this.panel = h(
      'section',
      { class: 'edit-panel', hidden: true, 'aria-label': 'Edit the metadata' },
      h('h3', {}, 'Pending changes'),
      this.where,
      this.pendingEmpty,
      this.pendingList,
      this.checkNote,
      this.#addForm(),
      h('div', { class: 'edit-save' }, this.saveButton, this.saveAsButton, this.progress, this.openSaved),
      this.status,
      this.savedInfo,
      h(
        'p',
        { class: 'note' },
        'Saving reads only the header of the file and writes a new one: the tensor data is taken as it is, never read into memory. Nothing is uploaded.',
      ),
    );
    this.editing = false;
    this.items = [];
    this.session = null;
    this.checks = 0;
    /** The edits of the last save, as JSON: pending changes that differ from them are unsaved. */
    this.savedEdits = null;
    globalThis.addEventListener?.('beforeunload', (e) => {
      if (this.unsaved()) e.preventDefault();
    });
  }

  /** How many pending changes would be lost now: none once they are saved. */
  unsaved() {
    const active = this.items.filter((i) => !i.undone);
    return active.length > 0 &&
      JSON.stringify(
        active.map((i) => i.edit),
        jsonSafe,
      ) !== this.savedEdits
      ? active.length
      : 0;
  }

  /**
   * The file of the model shown that `source` (a File, or `{url}` of a shard) is, with the header
   * the viewer read of it (an OpenedModel's file): what the edit module decodes instead of reading
   * the header again.
   */
  async #opened(source) {
    const { files } = await this.model();
    const name = source.url ? fileNameOf(source.url) : null;
    const file = files.find((f) => (source.url ? f.name === name : f.file === source));
    if (!file) throw new Error('the file to edit is no longer the one shown');
    return file;
  }

  /** The file's header decoded once by the edit module, to check changes as they are made. */
  #session() {
    const source = this.checkSource;
    if (!source) return null;
    this.session ??= this.library().then(async (library) => library.editSession(await this.#opened(source)));
    return this.session;
  }

  /** The validator's findings on template `text` as key `key`'s value (the edit module's `checkTemplate`). */
  async checkTemplate(key, text) {
    const session = await this.#session();
    return session ? session.checkTemplate(key, text) : [];
  }

  /** Checks the pending changes: every refusal on its change, the new findings under the list. */
  async #recheck() {
    const ticket = ++this.checks;
    const active = this.items.filter((i) => !i.undone);
    const session = this.#session();
    if (!session || active.length === 0) {
      this.#showChecks(null);
      return;
    }
    this.checkNote.dataset.state = 'checking';
    let result;
    try {
      result = await (await session).check(active.map((i) => i.edit));
    } catch (e) {
      if (ticket === this.checks) this.#showChecks({ failed: e });
      return;
    }
    if (ticket !== this.checks) return;
    // A value set back to what the file holds is no change: it leaves the list.
    const unchanged = new Set((result.unchanged ?? []).map((i) => active[i]));
    if (unchanged.size > 0) {
      this.items = this.items.filter((i) => !unchanged.has(i));
      this.#changed();
      this.status.textContent = `${[...unchanged].map((i) => i.key).join(', ')}: set back to the value the file holds, so no longer a change.`;
      return;
    }
    for (const item of this.items) item.refusal = null;
    for (const r of result.refusals) active[r.index].refusal = r;
    this.#renderPending();
    this.#showChecks(result);
  }

  #showChecks(result) {
    if (!result) {
      replaceChildren(this.checkNote);
      this.checkNote.dataset.state = 'none';
      return;
    }
    if (result.failed) {
      replaceChildren(
        this.checkNote,
        h(
          'p',
          { class: 'error-text' },
          `The changes could not be checked: ${result.failed.message ?? String(result.failed)}`,
        ),
      );
      this.checkNote.dataset.state = 'failed';
      return;
    }
    const refused = result.refusals.length;
    const found = result.findings.map((f) =>
      h(
        'li',
        { class: f.severity === 'error' ? 'error-text' : null, dataset: { severity: f.severity, code: f.code } },
        `${f.severity}: ${f.message}`,
      ),
    );
    replaceChildren(
      this.checkNote,
      h(
        'p',
        { class: refused ? 'error-text' : 'note' },
        refused
          ? `${refused} change${refused === 1 ? ' is' : 's are'} refused (said on ${refused === 1 ? 'it' : 'each'}): undo or change ${refused === 1 ? 'it' : 'them'} to save.`
          : found.length
            ? 'Checked: these changes can be saved, and the checks would say this of the new file:'
            : 'Checked: these changes can be saved; the checks find nothing new in the new file.',
      ),
      found.length > 0 && h('ul', {}, found),
    );
    this.checkNote.dataset.state = refused ? 'refused' : found.length ? 'found' : 'clean';
  }

  /** The form that adds a key. */
  #addForm() {
    const keyId = `edit-new-key-${++ids}`;
    const key = h('input', {
      id: keyId,
      type: 'text',
      spellcheck: 'false',
      placeholder: 'e.g. tokenizer.ggml.eot_token_id',
      dataset: { field: 'new-key' },
    });
    const type = typeSelect('Type', 'UINT32', { field: 'new-type' });
    const slot = h('div', { class: 'edit-value-slot' });
    let input;
    const build = () => {
      input = valueInput(type.select.value, 'Value', undefined, { multiline: true });
      replaceChildren(slot, input.node);
    };
    type.select.addEventListener('change', build);
    build();
    const error = h('p', { class: 'error-text', role: 'alert', hidden: true });
    const add = h('button', { type: 'submit', class: 'button small', dataset: { action: 'add-key' } }, 'Add the key');
    const form = h(
      'form',
      { class: 'edit-add' },
      h('h3', {}, 'Add a key'),
      h('div', { class: 'edit-fields' }, h('label', { for: keyId }, 'Key'), key, type.node),
      slot,
      error,
      add,
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      error.hidden = true;
      const name = key.value.trim();
      try {
        if (!name) throw new Error('a key is needed');
        const value = input.read();
        const entry = this.entries.find((m) => m.key === name);
        this.addPending({
          key: name,
          edit: { set: name, value, type: editType(type.select.value) },
          old: entry ? oldText(entry) : null,
          next: newText(value, type.select.value),
          type: type.select.value,
          action: entry ? 'set' : 'add',
        });
        key.value = '';
        build();
      } catch (err) {
        error.textContent = err.message;
        error.hidden = false;
      }
    });
    return form;
  }

  /**
   * A model was opened: `entries` its metadata, `table` the metadata container, `source` what was
   * opened (a File or Blob, several, or `{url}`), `report` its report, `name` its name; `tools`
   * what the template editor asks the parser worker: `jinjaSpans(text)`, `splitSpecial(text)`,
   * `chatTokens()`, `tokenizePrompt(text)` and the `tokenizer` report (a promise); `model()` the model's files with the headers the viewer
   * read (GgufClient#opened), which the checks and Save take: no header is read again.
   * @param {{source: import('./web/protocol.js').NamedBlob|import('./web/protocol.js').NamedBlob[]|{url: URL}} & Record<string, any>} opened
   */
  attach({ entries, table, source, report, name, tools = null, model = null }) {
    this.model = model;
    this.entries = entries;
    this.table = table;
    this.items = [];
    this.savedEdits = null;
    this.session?.then(
      (session) => session.free(),
      () => {},
    );
    this.session = null;
    this.checks++;
    this.#showChecks(null);
    this.tools = tools;
    this.tokenizer = null;
    tools?.tokenizer.then(
      (tokenizer) => tools === this.tools && (this.tokenizer = tokenizer),
      () => {},
    );
    this.saved = null;
    this.openSaved.hidden = true;
    this.status.textContent = '';
    this.progress.hidden = true;
    this.saving?.abort();
    /** @type {SaveSource|null} What Save writes from. */
    this.file = null;
    /** @type {SaveSource|null} What the checks read the header from. */
    this.checkSource = null;
    this.fileName = null;
    if (source instanceof Blob) {
      this.file = source;
      this.fileName = source.name ?? name;
      replaceChildren(
        this.where,
        `Changes are saved into a copy of ${this.fileName}, named ${editedName(this.fileName)}.`,
      );
    } else if (Array.isArray(source)) {
      const first = report.split?.shards.find((s) => s.number === 1)?.file;
      this.file = (first && source.find((f) => f.name === first)) ?? (source.length === 1 ? source[0] : null);
      this.fileName = this.file ? (this.file.name ?? name) : null;
      if (report.split && this.file) {
        replaceChildren(
          this.where,
          `A split model's metadata lives in its first shard: the changes are saved into a copy of ${this.fileName} (shard 1 of ${report.split.count}), named ${editedName(this.fileName)}. The other shards are not changed; keep them next to it (and give it back its shard name).`,
        );
      } else if (!this.file) {
        this.where.textContent =
          'The first shard of this split model was not opened: its metadata can be changed here, but only its first shard can be saved. Open every shard (or the first) to save.';
      } else {
        replaceChildren(
          this.where,
          `Changes are saved into a copy of ${this.fileName}, named ${editedName(this.fileName)}.`,
        );
      }
    }
    const url = source instanceof Blob || Array.isArray(source) ? null : this.#attachUrl(source, report);
    this.checkSource ??= this.file;
    this.where.dataset.value = url ?? (this.file ? 'file' : 'no-first-shard');
    // A URL model is saved only through Save to… (streamed into the chosen file): the download
    // button would need the whole file in memory.
    this.saveButton.hidden = url !== null && url !== 'url-cannot-save';
    if (url === 'url-cannot-save') {
      this.where.id ||= `edit-where-${++ids}`;
      this.saveButton.setAttribute('aria-describedby', this.where.id);
    } else {
      this.saveButton.removeAttribute('aria-describedby');
    }
    this.setEditing(false);
    this.#renderPending();
  }

  /**
   * For a model opened by URL (`source` is `{url}`): what Save writes from — the file at the URL,
   * or for a split model its first shard's, with the size it had when opened — and what the page
   * says about it. Resolves the `edit_where` state: 'url' (Save to… streams it), 'url-cannot-save'
   * (no File System Access API: a download would need the whole file in memory) or
   * 'url-no-first-shard'.
   */
  #attachUrl(source, report) {
    const url = new URL(source.url, globalThis.location?.href);
    const split = report.split;
    const first = split
      ? split.shards.find((s) => s.number === 1)
      : { file: fileNameOf(url), file_size: report.file_size, data_offset: report.data_offset };
    if (!first) {
      replaceChildren(
        this.where,
        `The first shard of this split model (${split.missing.find((m) => m.number === 1)?.file ?? 'shard 1'}) was not found on the server: its metadata can be changed here, but only the first shard holds it, so nothing can be saved.`,
      );
      return 'url-no-first-shard';
    }
    const at = new URL(url);
    if (split) at.pathname = at.pathname.replace(/[^/]*$/, encodeURIComponent(first.file));
    // Changes are checked against its header whether or not this browser can save it.
    this.checkSource = { url: at.href, size: first.file_size };
    const dataBytes = Math.max(first.file_size - first.data_offset, 0);
    const shard = split
      ? ` A split model's metadata lives in its first shard: the copy is of ${first.file} (shard 1 of ${split.count}); the other shards are not changed, keep them next to it (and give it back its shard name).`
      : '';
    if (typeof globalThis.showSaveFilePicker !== 'function') {
      this.where.textContent =
        `This model was opened by URL, and this browser cannot save it: a download of the changed copy would have to hold the whole file (${bytes(first.file_size)}) in memory. ` +
        'To save the changes, download the model and open it from disk ("Open a .gguf file"), or use a Chromium-based browser (Chrome, Edge), where Save to… streams the file from the server into the place you choose.' +
        shard;
      return 'url-cannot-save';
    }
    this.file = { url: at.href, size: first.file_size };
    this.fileName = first.file;
    this.where.textContent =
      `This model was opened by URL: Save to… writes a copy of ${first.file} with the changes, named ${editedName(first.file)}, into a file you choose. ` +
      `Its header is taken as it was read when the model was opened, then its tensor data (${bytes(dataBytes)}) is downloaded once and streamed into that file, never held in memory, with progress and Cancel.` +
      shard;
    return 'url';
  }

  setEditing(on) {
    this.editing = on;
    this.toggle.setAttribute('aria-pressed', String(on));
    this.toggle.textContent = on ? 'Done editing' : 'Edit';
    this.panel.hidden = !on;
    const table = this.table?.querySelector(':scope > table');
    if (!table) return;
    table
      .querySelectorAll(
        ':scope > thead > tr > .edit-head, :scope > tbody > tr > .edit-cell, :scope > tbody > tr.edit-row',
      )
      .forEach((n) => n.remove());
    table.classList.toggle('editing', on);
    if (!on) return;
    table.querySelector(':scope > thead > tr').append(h('th', { class: 'edit-head' }, 'Edit'));
    for (const row of table.querySelectorAll(':scope > tbody > tr[data-key]')) {
      const entry = this.entries[Number(row.dataset.index)];
      const nested = entry.type === 'ARRAY' && entry.value.element_type === 'ARRAY';
      const change = h(
        'button',
        {
          type: 'button',
          class: 'button small',
          disabled: nested,
          title: nested ? 'Arrays of arrays cannot be edited here' : null,
          'aria-label': `Change ${entry.key}`,
          dataset: { action: 'change' },
        },
        'Change',
      );
      const remove = h(
        'button',
        {
          type: 'button',
          class: 'button small',
          'aria-label': `Delete ${entry.key}`,
          dataset: { action: 'delete-key' },
        },
        'Delete',
      );
      change.addEventListener('click', () => this.#openEditor(row, entry));
      remove.addEventListener('click', () =>
        this.addPending({
          key: entry.key,
          edit: { delete: entry.key },
          old: oldText(entry),
          next: null,
          type: typeName(entry),
          action: 'delete',
        }),
      );
      row.append(h('td', { class: 'edit-cell' }, h('div', { class: 'edit-buttons' }, change, remove)));
    }
  }

  /** The in-place editor of one row's value, in a row of its own under it. */
  #openEditor(row, entry) {
    if (row.nextElementSibling?.classList.contains('edit-row'))
      return row.nextElementSibling.querySelector('input, textarea, select')?.focus();
    const template =
      entry.chat_template !== undefined ||
      (entry.type === 'STRING' && (entry.truncated || entry.value.includes('\n') || entry.value.length > SHOW_AT));
    const whole = entry.type === 'ARRAY' ? entry.value.len <= entry.value.head.length : !entry.truncated;
    const type = typeSelect('Type', typeName(entry), { field: 'edit-type' });
    const slot = h('div', { class: 'edit-value-slot' });
    const note = h('p', { class: 'note' });
    let input;
    let built = 0;
    const build = async () => {
      const ticket = ++built;
      const same = type.select.value === typeName(entry);
      const label = `New value of ${entry.key}`;
      note.hidden = true;
      if (entry.chat_template !== undefined && type.select.value === 'STRING') {
        // The template editor starts from the whole text, which the report may cut.
        let text = entry.value;
        if (entry.truncated) {
          replaceChildren(slot, h('p', { class: 'note' }, 'Reading the whole template…'));
          text = (await (await this.#session())?.text(entry.key).catch(() => undefined)) ?? null;
          if (ticket !== built) return;
        }
        if (text !== null) {
          const tools = this.tools;
          input = templateEditor({
            key: entry.key,
            text,
            label,
            jinjaSpans: (t) => (tools ? tools.jinjaSpans(t) : Promise.reject(new Error('no lexer'))),
            check: (t) => this.checkTemplate(entry.key, t),
            preview:
              tools && this.tokenizer
                ? {
                    chatTokens: tools.chatTokens,
                    tokenizePrompt: tools.tokenizePrompt,
                    splitSpecial: tools.splitSpecial,
                  }
                : null,
          });
          replaceChildren(slot, input.node);
          return;
        }
      }
      const initial = same && whole ? (entry.type === 'ARRAY' ? entry.value.head : entry.value) : undefined;
      input = valueInput(type.select.value, label, initial, { multiline: template });
      replaceChildren(slot, input.node);
      note.textContent =
        same && !whole
          ? entry.type === 'ARRAY'
            ? `This array has ${grouped(entry.value.len)} elements: paste the whole new array as JSON, or load it from a file.`
            : `This value is ${grouped(entry.value_len)} bytes, shown only in part: write or paste the whole new text.`
          : '';
      note.hidden = !note.textContent;
    };
    type.select.addEventListener('change', () => build().then(() => input.focus.focus()));
    const ready = build();
    const error = h('p', { class: 'error-text', role: 'alert', hidden: true });
    const apply = h(
      'button',
      { type: 'submit', class: 'button small primary', dataset: { action: 'apply' } },
      'Add to changes',
    );
    const cancel = h('button', { type: 'button', class: 'button small', dataset: { action: 'cancel' } }, 'Cancel');
    const form = h(
      'form',
      { class: 'edit-form' },
      h('div', { class: 'edit-fields' }, type.node),
      note,
      slot,
      error,
      h('div', { class: 'edit-buttons' }, apply, cancel),
    );
    const editRow = h('tr', { class: 'edit-row', dataset: { for: entry.key } }, h('td', { colspan: 5 }, form));
    const close = () => {
      editRow.remove();
      row.querySelector('[data-action="change"]')?.focus();
    };
    cancel.addEventListener('click', close);
    // Escape leaves, unless a template has been typed into (a stray key must not lose it).
    form.addEventListener('keydown', (e) => e.key === 'Escape' && !input?.dirty?.() && close());
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      error.hidden = true;
      try {
        const value = input.read();
        const chosen = type.select.value;
        const edit = { set: entry.key, value };
        if (chosen !== typeName(entry)) edit.type = editType(chosen);
        this.addPending({
          key: entry.key,
          edit,
          old: oldText(entry),
          next: newText(value, chosen),
          type: chosen,
          action: 'set',
        });
        close();
      } catch (err) {
        error.textContent = err.message;
        error.hidden = false;
      }
    });
    row.after(editRow);
    ready.then(() => input.focus.focus());
  }

  /**
   * Opens Edit with a change filled in, pending for the user to review, undo or save: `{key,
   * value, type}` as the upstream check's fix gives it (`value` as `ggufscope edit --set` reads
   * it; `type` in the CLI's spelling, `u32` or `arr[u32]`, for a key the file lacks, else null).
   * @param {{key: string, value: string, type: string|null}} fix
   */
  propose({ key, value, type }) {
    if (!this.editing) this.setEditing(true);
    const entry = this.entries?.find((m) => m.key === key);
    const name = type ? typeOfCli(type) : entry ? typeName(entry) : 'STRING';
    this.addPending({
      key,
      edit: type ? { set: key, value, type: editType(name) } : { set: key, value },
      old: entry ? oldText(entry) : null,
      next: newText(value, name),
      type: name,
      action: entry ? 'set' : 'add',
    });
    this.panel.scrollIntoView({ block: 'nearest' });
    this.pendingList.querySelector(`li[data-key="${CSS.escape(key)}"] button`)?.focus();
  }

  /** Adds a change (replacing a pending one of the same key). */
  addPending(item) {
    this.items = this.items.filter((i) => i.key !== item.key || i.undone);
    this.items.push({ ...item, undone: false, refusal: null });
    this.#changed();
  }

  #changed() {
    for (const item of this.items) item.refusal = null;
    this.status.textContent = '';
    this.#renderPending();
    this.#recheck();
  }

  #renderPending() {
    const active = this.items.filter((i) => !i.undone);
    this.pendingEmpty.hidden = this.items.length > 0;
    this.saveButton.disabled = active.length === 0 || !this.file || active.some((i) => i.refusal);
    this.saveAsButton.disabled = this.saveButton.disabled;
    replaceChildren(this.saveButton, this.file ? `Save ${editedName(this.fileName)}` : 'Save');
    this.toggle.textContent = this.editing
      ? 'Done editing'
      : active.length
        ? `Edit (${active.length} pending)`
        : 'Edit';
    replaceChildren(
      this.pendingList,
      this.items.map((item) => {
        const undo = h(
          'button',
          {
            type: 'button',
            class: 'button small',
            'aria-label': `${item.undone ? 'Redo' : 'Undo'} the change of ${item.key}`,
            dataset: { action: item.undone ? 'redo' : 'undo' },
          },
          item.undone ? 'Redo' : 'Undo',
        );
        undo.addEventListener('click', () => {
          if (item.undone) this.items = this.items.filter((i) => i === item || i.key !== item.key || i.undone);
          item.undone = !item.undone;
          this.#changed();
          this.pendingList.querySelector(`li[data-position="${this.items.indexOf(item)}"] button`)?.focus();
        });
        const what =
          item.action === 'delete'
            ? [
                h('span', { class: 'edit-verb' }, 'delete'),
                ' ',
                h('span', { class: 'edit-old', dataset: { field: 'old' } }, item.old),
              ]
            : item.action === 'add'
              ? [
                  h('span', { class: 'edit-verb' }, 'add'),
                  ' ',
                  h('span', { class: 'edit-new', dataset: { field: 'new' } }, item.next),
                ]
              : [
                  h('span', { class: 'edit-old', dataset: { field: 'old' } }, item.old),
                  ' → ',
                  h('span', { class: 'edit-new', dataset: { field: 'new' } }, item.next),
                ];
        return h(
          'li',
          {
            dataset: { key: item.key, state: item.undone ? 'undone' : 'pending', position: this.items.indexOf(item) },
            class: item.undone ? 'undone' : null,
          },
          h(
            'div',
            { class: 'edit-item' },
            h('code', { class: 'edit-key' }, item.key),
            h('span', { class: 'muted' }, ` ${item.type}`),
            undo,
          ),
          h('div', { class: 'edit-change' }, what),
          item.refusal &&
            h(
              'p',
              { class: 'error-text refusal', role: 'alert', dataset: { field: 'refusal', code: item.refusal.code } },
              `Refused: ${item.refusal.message}`,
            ),
        );
      }),
    );
  }

  /**
   * Saves the pending changes: downloads the new file, or writes it where the user picks. A model
   * opened by URL is streamed from the server into the picked file (#saveUrl).
   */
  async save(how) {
    const active = this.items.filter((i) => !i.undone);
    if (!this.file || active.length === 0) return;
    const name = editedName(this.fileName);
    this.saveButton.disabled = this.saveAsButton.disabled = true;
    this.openSaved.hidden = true;
    this.saved = null;
    this.status.classList.remove('error-text');
    this.status.textContent = 'Reading the header and writing the new one…';
    let handle = null;
    try {
      // The picker must be asked for while the click still counts as the user's gesture.
      if (how === 'picker')
        handle = await globalThis.showSaveFilePicker({
          suggestedName: name,
          types: [{ description: 'GGUF model', accept: { 'application/octet-stream': ['.gguf'] } }],
        });
      if (this.file.url) {
        if (!handle)
          throw new Error(
            'a model opened by URL can only be saved with Save to…, which streams it into the file you choose',
          );
        await this.#saveUrl(handle, active);
        this.savedEdits = JSON.stringify(
          active.map((i) => i.edit),
          jsonSafe,
        );
        return;
      }
      const { editWithChanges } = await this.library();
      const made = await editWithChanges(
        await this.#opened(this.file),
        active.map((i) => i.edit),
      );
      this.saved = { file: made.file, name };
      this.savedInfo.dataset.size = String(made.file.size);
      this.savedInfo.dataset.bytesRead = String(made.read.bytesRead);
      const sizes = `${bytes(made.file_size.after)} (header ${bytes(made.header_size.before)} → ${bytes(made.header_size.after)}; ${bytes(made.read.bytesRead)} read, the tensor data not at all)`;
      if (handle) {
        await this.#write(handle, made.file);
        replaceChildren(this.status, `Saved ${handle.name}: ${sizes}. Its header was read back and checked.`);
      } else {
        download(made.file, name);
        replaceChildren(this.status, `${name} is being downloaded: ${sizes}. Its header was read back and checked.`);
      }
      this.openSaved.hidden = false;
      this.savedEdits = JSON.stringify(
        active.map((i) => i.edit),
        jsonSafe,
      );
    } catch (e) {
      this.status.classList.add('error-text');
      if (e?.name === 'AbortError' && handle) {
        replaceChildren(
          this.status,
          `Not saved: cancelled. ${handle.name} is not half-written: the browser wrote into a temporary file and threw it away, so ${handle.name} is left empty (choosing a file in the save dialog empties it).`,
        );
      } else if (e?.name === 'AbortError') {
        this.status.textContent = 'Not saved: no place was chosen.';
      } else if (typeof e?.code === 'string' && typeof e?.key === 'string') {
        const item = active.findLast((i) => i.key === e.key) ?? active.at(-1);
        item.refusal = e;
        this.#renderPending();
        this.status.classList.add('error-text');
        this.status.textContent = `Not saved: the change of ${e.key} was refused (${e.code}). Undo or change it, then save again.`;
      } else {
        replaceChildren(
          this.status,
          `Not saved: ${e?.message ?? String(e)}${handle && this.file?.url ? `. ${handle.name} is not half-written: the browser threw away what was written, and ${handle.name} is left empty.` : ''}`,
        );
      }
    } finally {
      this.progress.hidden = true;
      this.saveButton.disabled = this.saveAsButton.disabled =
        this.items.every((i) => i.undone) || this.items.some((i) => !i.undone && i.refusal);
    }
  }

  /**
   * Writes the changed copy of a model opened by URL into `handle`: the header read and edited
   * over Range requests, then the data section streamed from one request (web/url-save.js), with
   * progress (bytes, MB/s) and Cancel, which aborts the write.
   */
  async #saveUrl(handle, active) {
    const controller = new AbortController();
    this.saving = controller;
    const cancel = this.#cancelButton();
    cancel.hidden = false;
    replaceChildren(this.status, `Reading the header of ${this.fileName} from the server…`);
    try {
      const { saveEditedUrl } = await import('./web/url-save.js').catch(notLoaded('the saving of a URL'));
      const writable = await handle.createWritable();
      this.progress.hidden = false;
      this.progress.value = 0;
      let started = null;
      const made = await saveEditedUrl(
        this.file.url,
        active.map((i) => i.edit),
        writable,
        {
          size: this.file.size,
          opened: await this.#opened(this.file),
          signal: controller.signal,
          onProgress: (p) => {
            started ??= performance.now();
            const seconds = (performance.now() - started) / 1000;
            const rate = seconds >= 0.5 ? `, ${(p.dataBytes / 1e6 / seconds).toFixed(1)} MB/s` : '';
            this.progress.value = p.total ? p.written / p.total : 1;
            replaceChildren(
              this.status,
              `Writing ${handle.name}: ${bytes(p.written)} of ${bytes(p.total)}${rate}, the tensor data streamed from the server. Cancel stops it and leaves ${handle.name} empty, not half-written.`,
            );
          },
        },
      );
      const seconds = started === null ? 0 : (performance.now() - started) / 1000;
      this.savedInfo.dataset.size = String(made.written);
      this.savedInfo.dataset.bytesRead = String(made.read.bytesRead);
      this.savedInfo.dataset.streamed = String(made.dataBytes);
      const rate =
        seconds >= 0.5 ? ` in ${seconds.toFixed(1)} s (${(made.dataBytes / 1e6 / seconds).toFixed(1)} MB/s)` : '';
      const skipped = made.skipped
        ? `; the server ignores Range requests, so its first ${bytes(made.skipped)} were downloaded and skipped`
        : '';
      this.status.textContent =
        `Saved ${handle.name}: ${bytes(made.file_size.after)} (header ${bytes(made.header_size.before)} → ${bytes(made.header_size.after)}; ${bytes(made.read.bytesRead)} read for the header, ` +
        `then the tensor data, ${bytes(made.dataBytes)}, streamed from the server${rate}${skipped}). Its header was read back and checked.`;
      if (typeof handle.getFile === 'function') {
        this.saved = { file: await handle.getFile(), name: handle.name };
        this.openSaved.hidden = false;
      }
    } finally {
      cancel.hidden = true;
      if (this.saving === controller) this.saving = null;
    }
  }

  /** The Cancel button of a save from a URL, beside the progress bar (made on the first such save). */
  #cancelButton() {
    if (!this.cancelSave) {
      this.cancelSave = h(
        'button',
        { type: 'button', class: 'button', hidden: true, dataset: { action: 'cancel-save' } },
        'Cancel',
      );
      this.cancelSave.addEventListener('click', () => this.saving?.abort());
      this.progress.after(this.cancelSave);
    }
    return this.cancelSave;
  }

  /**
   * Writes `blob` to a file handle a slice at a time, with progress. The slices are Blobs, not
   * bytes: the browser copies them from the file to the file itself, so the tensor data never
   * passes through the page (its memory stays flat; twice as fast as streaming the bytes here).
   */
  async #write(handle, blob) {
    const out = await handle.createWritable();
    this.progress.hidden = false;
    this.progress.value = 0;
    try {
      for (let at = 0; at < blob.size;) {
        const end = Math.min(at + WRITE_SLICE, blob.size);
        await out.write(blob.slice(at, end));
        at = end;
        this.progress.value = at / blob.size;
        replaceChildren(this.status, `Writing ${handle.name}… ${bytes(at)} of ${bytes(blob.size)}`);
      }
      await out.close();
    } catch (e) {
      await out.abort().catch(() => {});
      throw e;
    }
  }
}

/** Downloads `blob` as `name` through a link; its object URL is revoked once the download has started. */
function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
