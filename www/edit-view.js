// Edit mode on the metadata table: change a value in place (typed: numbers, booleans, strings, an
// array as a whole from pasted JSON), add a key, delete a key; the chat template in a text area. The
// changes wait in a pending list (old → new, each can be undone and redone) until Save, which
// calls `editWithChanges(file, edits)` (web/edit.js): it reads the header only, builds the new file
// as `new Blob([newHeader, file.slice(oldDataOffset)])` — the tensor data is never read or copied —
// and reads the new header back to prove it. The Blob is downloaded as NAME.edited.gguf, or written
// where the user chooses (File System Access API, where there is one). Nothing is uploaded.
//
// Hooks for people and tests: `data-action` on every control (edit, change, delete-key, apply,
// cancel, add-key, undo, redo, save, save-as, open-saved), `data-field` on inputs and results.

import { h, replaceChildren } from './dom.js';
import { bytes, grouped } from './format.js';
import { fileNameOf } from './web/http-blob.js';

const SCALARS = ['UINT8', 'INT8', 'UINT16', 'INT16', 'UINT32', 'INT32', 'UINT64', 'INT64', 'FLOAT32', 'FLOAT64', 'BOOL', 'STRING'];
const TYPES = [...SCALARS, ...SCALARS.map((t) => `ARRAY[${t}]`)];
const SHOW_AT = 120;

/** A type of the report's metadata entry as the type select names it: `UINT32`, `ARRAY[STRING]`. */
function typeName(entry) {
  return entry.type === 'ARRAY' ? `ARRAY[${entry.value.element_type}]` : entry.type;
}

/** The `type` an edit gives for a type select's name. */
function editType(name) {
  const array = /^ARRAY\[(.+)\]$/.exec(name);
  return array ? { type: 'ARRAY', element_type: array[1] } : name;
}

/** A value, short, for the pending list. */
function shortText(value) {
  let text = typeof value === 'string' ? JSON.stringify(value) : Array.isArray(value) ? JSON.stringify(value) : String(value);
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
    const select = h('select', { id, dataset: { field: 'edit-value' } }, h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
    if (initial !== undefined) select.value = String(initial);
    return { node: [labelNode, select], focus: select, read: () => select.value === 'true' };
  }
  if (name.startsWith('ARRAY')) {
    const area = h('textarea', { id, rows: 4, spellcheck: 'false', dataset: { field: 'edit-value' }, placeholder: '[1, 2, 3] — a JSON array' });
    if (initial !== undefined) area.value = JSON.stringify(initial);
    const read = () => {
      let value;
      try {
        value = JSON.parse(area.value);
      } catch (e) {
        throw new Error(`not JSON: ${e.message}`);
      }
      if (!Array.isArray(value)) throw new Error('not a JSON array: write [ … ]');
      return value;
    };
    return { node: [labelNode, area], focus: area, read };
  }
  if (name === 'STRING' && multiline) {
    const area = h('textarea', { id, rows: 12, spellcheck: 'false', dataset: { field: 'edit-value' } });
    if (initial !== undefined) area.value = initial;
    return { node: [labelNode, area], focus: area, read: () => area.value };
  }
  const numeric = name !== 'STRING';
  const input = h('input', { id, type: 'text', spellcheck: 'false', inputmode: numeric ? (/FLOAT/.test(name) ? 'decimal' : 'numeric') : null, dataset: { field: 'edit-value' } });
  if (initial !== undefined) input.value = String(initial);
  const read = () => {
    if (numeric && input.value.trim() === '') throw new Error('a number is needed');
    return numeric ? input.value.trim() : input.value;
  };
  return { node: [labelNode, input], focus: input, read };
}

/** A type select (labelled), `value` chosen. */
function typeSelect(label, value, { field }) {
  const id = `edit-type-${++ids}`;
  const select = h('select', { id, dataset: { field } }, TYPES.map((t) => h('option', { value: t }, t)));
  select.value = value;
  return { node: [h('label', { for: id }, label), select], select };
}

export class EditMode {
  /**
   * @param {object} options
   * @param {(blob: Blob, name: string) => void} options.openBlob  Opens a saved file in the viewer.
   * @param {() => Promise<typeof import('../web/edit.js')>} [options.library]  The edit library
   *   (loaded on the first Save).
   */
  constructor({ openBlob, library = () => import('./web/edit.js') }) {
    this.openBlob = openBlob;
    this.library = library;
    this.toggle = h('button', { type: 'button', class: 'button small', 'aria-pressed': 'false', dataset: { action: 'edit' } }, 'Edit');
    this.toggle.addEventListener('click', () => this.setEditing(!this.editing));
    this.where = h('p', { class: 'note', dataset: { field: 'edit_where' } });
    this.pendingList = h('ol', { class: 'edit-pending', dataset: { field: 'pending' } });
    this.pendingEmpty = h('p', { class: 'note' }, 'No changes yet: use Change or Delete on a row, or add a key below.');
    this.saveButton = h('button', { type: 'button', class: 'button primary', dataset: { action: 'save' } }, 'Save');
    this.saveButton.addEventListener('click', () => this.save('download'));
    this.saveAsButton = h('button', { type: 'button', class: 'button', dataset: { action: 'save-as' }, hidden: typeof globalThis.showSaveFilePicker !== 'function' }, 'Save to…');
    this.saveAsButton.addEventListener('click', () => this.save('picker'));
    this.progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Saving' });
    this.status = h('p', { class: 'edit-status', role: 'status', dataset: { field: 'save_status' } });
    this.openSaved = h('button', { type: 'button', class: 'button', hidden: true, dataset: { action: 'open-saved' } }, 'Open the saved file');
    this.openSaved.addEventListener('click', () => this.saved && this.openBlob(this.saved.file, this.saved.name));
    this.savedInfo = h('span', { hidden: true, dataset: { field: 'saved', size: '', bytesRead: '' } });
    this.panel = h(
      'section',
      { class: 'edit-panel', hidden: true, 'aria-label': 'Edit the metadata' },
      h('h3', {}, 'Pending changes'),
      this.where,
      this.pendingEmpty,
      this.pendingList,
      this.#addForm(),
      h('div', { class: 'edit-save' }, this.saveButton, this.saveAsButton, this.progress, this.openSaved),
      this.status,
      this.savedInfo,
      h('p', { class: 'note' }, 'Saving reads only the header of the file and writes a new one: the tensor data is taken as it is, never read into memory. Nothing is uploaded.'),
    );
    this.editing = false;
    this.items = [];
  }

  /** The form that adds a key. */
  #addForm() {
    const keyId = `edit-new-key-${++ids}`;
    const key = h('input', { id: keyId, type: 'text', spellcheck: 'false', placeholder: 'e.g. tokenizer.ggml.eot_token_id', dataset: { field: 'new-key' } });
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
    const form = h('form', { class: 'edit-add' }, h('h3', {}, 'Add a key'), h('div', { class: 'edit-fields' }, h('label', { for: keyId }, 'Key'), key, type.node), slot, error, add);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      error.hidden = true;
      const name = key.value.trim();
      try {
        if (!name) throw new Error('a key is needed');
        const value = input.read();
        const entry = this.entries.find((m) => m.key === name);
        this.addPending({ key: name, edit: { set: name, value, type: editType(type.select.value) }, old: entry ? oldText(entry) : null, next: newText(value, type.select.value), type: type.select.value, action: entry ? 'set' : 'add' });
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
   * opened (a File or Blob, several, or `{url}`), `report` its report, `name` its name.
   */
  attach({ entries, table, source, report, name }) {
    this.entries = entries;
    this.table = table;
    this.items = [];
    this.saved = null;
    this.openSaved.hidden = true;
    this.status.textContent = '';
    this.progress.hidden = true;
    this.saving?.abort();
    this.file = null;
    this.fileName = null;
    if (source instanceof Blob) {
      this.file = source;
      this.fileName = source.name ?? name;
      this.where.textContent = `Changes are saved into a copy of ${this.fileName}, named ${editedName(this.fileName)}.`;
    } else if (Array.isArray(source)) {
      const first = report.split?.shards.find((s) => s.number === 1)?.file;
      this.file = (first && source.find((f) => f.name === first)) ?? (source.length === 1 ? source[0] : null);
      this.fileName = this.file ? (this.file.name ?? name) : null;
      if (report.split && this.file) {
        this.where.textContent = `A split model's metadata lives in its first shard: the changes are saved into a copy of ${this.fileName} (shard 1 of ${report.split.count}), named ${editedName(this.fileName)}. The other shards are not changed; keep them next to it (and give it back its shard name).`;
      } else if (!this.file) {
        this.where.textContent = "The first shard of this split model was not opened: its metadata can be changed here, but only its first shard can be saved. Open every shard (or the first) to save.";
      } else {
        this.where.textContent = `Changes are saved into a copy of ${this.fileName}, named ${editedName(this.fileName)}.`;
      }
    }
    const url = source instanceof Blob || Array.isArray(source) ? null : this.#attachUrl(source, report);
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
    const first = split ? split.shards.find((s) => s.number === 1) : { file: fileNameOf(url), file_size: report.file_size, data_offset: report.data_offset };
    if (!first) {
      this.where.textContent = `The first shard of this split model (${split.missing.find((m) => m.number === 1)?.file ?? 'shard 1'}) was not found on the server: its metadata can be changed here, but only the first shard holds it, so nothing can be saved.`;
      return 'url-no-first-shard';
    }
    const at = new URL(url);
    if (split) at.pathname = at.pathname.replace(/[^/]*$/, encodeURIComponent(first.file));
    const dataBytes = Math.max(first.file_size - first.data_offset, 0);
    const shard = split ? ` A split model's metadata lives in its first shard: the copy is of ${first.file} (shard 1 of ${split.count}); the other shards are not changed, keep them next to it (and give it back its shard name).` : '';
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
      `Its header is read from the server again, then its tensor data (${bytes(dataBytes)}) is downloaded once and streamed into that file, never held in memory, with progress and Cancel.` +
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
    table.querySelectorAll(':scope > thead > tr > .edit-head, :scope > tbody > tr > .edit-cell, :scope > tbody > tr.edit-row').forEach((n) => n.remove());
    table.classList.toggle('editing', on);
    if (!on) return;
    table.querySelector(':scope > thead > tr').append(h('th', { class: 'edit-head' }, 'Edit'));
    for (const row of table.querySelectorAll(':scope > tbody > tr[data-key]')) {
      const entry = this.entries[Number(row.dataset.index)];
      const nested = entry.type === 'ARRAY' && entry.value.element_type === 'ARRAY';
      const change = h('button', { type: 'button', class: 'button small', disabled: nested, title: nested ? 'Arrays of arrays cannot be edited here' : null, 'aria-label': `Change ${entry.key}`, dataset: { action: 'change' } }, 'Change');
      const remove = h('button', { type: 'button', class: 'button small', 'aria-label': `Delete ${entry.key}`, dataset: { action: 'delete-key' } }, 'Delete');
      change.addEventListener('click', () => this.#openEditor(row, entry));
      remove.addEventListener('click', () => this.addPending({ key: entry.key, edit: { delete: entry.key }, old: oldText(entry), next: null, type: typeName(entry), action: 'delete' }));
      row.append(h('td', { class: 'edit-cell' }, h('div', { class: 'edit-buttons' }, change, remove)));
    }
  }

  /** The in-place editor of one row's value, in a row of its own under it. */
  #openEditor(row, entry) {
    if (row.nextElementSibling?.classList.contains('edit-row')) return row.nextElementSibling.querySelector('input, textarea, select')?.focus();
    const template = entry.chat_template !== undefined || (entry.type === 'STRING' && (entry.truncated || entry.value.includes('\n') || entry.value.length > SHOW_AT));
    const whole = entry.type === 'ARRAY' ? entry.value.len <= entry.value.head.length : !entry.truncated;
    const type = typeSelect('Type', typeName(entry), { field: 'edit-type' });
    const slot = h('div', { class: 'edit-value-slot' });
    const note = h('p', { class: 'note' });
    let input;
    const build = () => {
      const same = type.select.value === typeName(entry);
      const initial = same && whole ? (entry.type === 'ARRAY' ? entry.value.head : entry.value) : undefined;
      input = valueInput(type.select.value, `New value of ${entry.key}`, initial, { multiline: template });
      replaceChildren(slot, input.node);
      note.textContent = same && !whole ? (entry.type === 'ARRAY' ? `This array has ${grouped(entry.value.len)} elements: paste the whole new array as JSON.` : `This value is ${grouped(entry.value_len)} bytes, shown only in part: write or paste the whole new text.`) : '';
      note.hidden = !note.textContent;
    };
    type.select.addEventListener('change', build);
    build();
    const error = h('p', { class: 'error-text', role: 'alert', hidden: true });
    const apply = h('button', { type: 'submit', class: 'button small primary', dataset: { action: 'apply' } }, 'Add to changes');
    const cancel = h('button', { type: 'button', class: 'button small', dataset: { action: 'cancel' } }, 'Cancel');
    const form = h('form', { class: 'edit-form' }, h('div', { class: 'edit-fields' }, type.node), note, slot, error, h('div', { class: 'edit-buttons' }, apply, cancel));
    const editRow = h('tr', { class: 'edit-row', dataset: { for: entry.key } }, h('td', { colspan: 5 }, form));
    const close = () => {
      editRow.remove();
      row.querySelector('[data-action="change"]')?.focus();
    };
    cancel.addEventListener('click', close);
    form.addEventListener('keydown', (e) => e.key === 'Escape' && close());
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      error.hidden = true;
      try {
        const value = input.read();
        const chosen = type.select.value;
        const edit = { set: entry.key, value };
        if (chosen !== typeName(entry)) edit.type = editType(chosen);
        this.addPending({ key: entry.key, edit, old: oldText(entry), next: newText(value, chosen), type: chosen, action: 'set' });
        close();
      } catch (err) {
        error.textContent = err.message;
        error.hidden = false;
      }
    });
    row.after(editRow);
    input.focus.focus();
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
  }

  #renderPending() {
    const active = this.items.filter((i) => !i.undone);
    this.pendingEmpty.hidden = this.items.length > 0;
    this.saveButton.disabled = active.length === 0 || !this.file;
    this.saveAsButton.disabled = this.saveButton.disabled;
    this.saveButton.textContent = this.file ? `Save ${editedName(this.fileName)}` : 'Save';
    this.toggle.textContent = this.editing ? 'Done editing' : active.length ? `Edit (${active.length} pending)` : 'Edit';
    replaceChildren(
      this.pendingList,
      this.items.map((item) => {
        const undo = h('button', { type: 'button', class: 'button small', 'aria-label': `${item.undone ? 'Redo' : 'Undo'} the change of ${item.key}`, dataset: { action: item.undone ? 'redo' : 'undo' } }, item.undone ? 'Redo' : 'Undo');
        undo.addEventListener('click', () => {
          if (item.undone) this.items = this.items.filter((i) => i === item || i.key !== item.key || i.undone);
          item.undone = !item.undone;
          this.#changed();
          this.pendingList.querySelector(`li[data-position="${this.items.indexOf(item)}"] button`)?.focus();
        });
        const what =
          item.action === 'delete'
            ? [h('span', { class: 'edit-verb' }, 'delete'), ' ', h('span', { class: 'edit-old', dataset: { field: 'old' } }, item.old)]
            : item.action === 'add'
              ? [h('span', { class: 'edit-verb' }, 'add'), ' ', h('span', { class: 'edit-new', dataset: { field: 'new' } }, item.next)]
              : [h('span', { class: 'edit-old', dataset: { field: 'old' } }, item.old), ' → ', h('span', { class: 'edit-new', dataset: { field: 'new' } }, item.next)];
        return h(
          'li',
          { dataset: { key: item.key, state: item.undone ? 'undone' : 'pending', position: this.items.indexOf(item) }, class: item.undone ? 'undone' : null },
          h('div', { class: 'edit-item' }, h('code', { class: 'edit-key' }, item.key), h('span', { class: 'muted' }, ` ${item.type}`), undo),
          h('div', { class: 'edit-change' }, what),
          item.refusal && h('p', { class: 'error-text refusal', role: 'alert', dataset: { field: 'refusal', code: item.refusal.code } }, `Refused: ${item.refusal.message}`),
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
      if (how === 'picker') handle = await globalThis.showSaveFilePicker({ suggestedName: name, types: [{ description: 'GGUF model', accept: { 'application/octet-stream': ['.gguf'] } }] });
      if (this.file.url) {
        if (!handle) throw new Error('a model opened by URL can only be saved with Save to…, which streams it into the file you choose');
        await this.#saveUrl(handle, active);
        return;
      }
      const { editWithChanges } = await this.library();
      const made = await editWithChanges(this.file, active.map((i) => i.edit));
      this.saved = { file: made.file, name };
      this.savedInfo.dataset.size = String(made.file.size);
      this.savedInfo.dataset.bytesRead = String(made.read.bytesRead);
      const sizes = `${bytes(made.file_size.after)} (header ${bytes(made.header_size.before)} → ${bytes(made.header_size.after)}; ${bytes(made.read.bytesRead)} read, the tensor data not at all)`;
      if (handle) {
        await this.#write(handle, made.file);
        this.status.textContent = `Saved ${handle.name}: ${sizes}. Its header was read back and checked.`;
      } else {
        download(made.file, name);
        this.status.textContent = `${name} is being downloaded: ${sizes}. Its header was read back and checked.`;
      }
      this.openSaved.hidden = false;
    } catch (e) {
      this.status.classList.add('error-text');
      if (e?.name === 'AbortError' && handle) {
        this.status.textContent = `Not saved: cancelled. ${handle.name} is not half-written: the browser wrote into a temporary file and threw it away, so ${handle.name} is left empty (choosing a file in the save dialog empties it).`;
      } else if (e?.name === 'AbortError') {
        this.status.textContent = 'Not saved: no place was chosen.';
      } else if (typeof e?.code === 'string' && typeof e?.key === 'string') {
        const item = active.findLast((i) => i.key === e.key) ?? active.at(-1);
        item.refusal = e;
        this.#renderPending();
        this.status.classList.add('error-text');
        this.status.textContent = `Not saved: the change of ${e.key} was refused (${e.code}). Undo or change it, then save again.`;
      } else {
        this.status.textContent = `Not saved: ${e?.message ?? String(e)}${handle && this.file?.url ? `. ${handle.name} is not half-written: the browser threw away what was written, and ${handle.name} is left empty.` : ''}`;
      }
    } finally {
      this.progress.hidden = true;
      this.saveButton.disabled = this.saveAsButton.disabled = this.items.every((i) => i.undone);
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
    this.status.textContent = `Reading the header of ${this.fileName} from the server…`;
    try {
      const { saveEditedUrl } = await import('./web/url-save.js');
      const writable = await handle.createWritable();
      this.progress.hidden = false;
      this.progress.value = 0;
      let started = null;
      const made = await saveEditedUrl(this.file.url, active.map((i) => i.edit), writable, {
        size: this.file.size,
        signal: controller.signal,
        onProgress: (p) => {
          started ??= performance.now();
          const seconds = (performance.now() - started) / 1000;
          const rate = seconds >= 0.5 ? `, ${(p.dataBytes / 1e6 / seconds).toFixed(1)} MB/s` : '';
          this.progress.value = p.total ? p.written / p.total : 1;
          this.status.textContent = `Writing ${handle.name}: ${bytes(p.written)} of ${bytes(p.total)}${rate}, the tensor data streamed from the server. Cancel stops it and leaves ${handle.name} empty, not half-written.`;
        },
      });
      const seconds = started === null ? 0 : (performance.now() - started) / 1000;
      this.savedInfo.dataset.size = String(made.written);
      this.savedInfo.dataset.bytesRead = String(made.read.bytesRead);
      this.savedInfo.dataset.streamed = String(made.dataBytes);
      const rate = seconds >= 0.5 ? ` in ${seconds.toFixed(1)} s (${(made.dataBytes / 1e6 / seconds).toFixed(1)} MB/s)` : '';
      const skipped = made.skipped ? `; the server ignores Range requests, so its first ${bytes(made.skipped)} were downloaded and skipped` : '';
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
      this.cancelSave = h('button', { type: 'button', class: 'button', hidden: true, dataset: { action: 'cancel-save' } }, 'Cancel');
      this.cancelSave.addEventListener('click', () => this.saving?.abort());
      this.progress.after(this.cancelSave);
    }
    return this.cancelSave;
  }

  /** Writes `blob` to a file handle a chunk at a time, with progress. */
  async #write(handle, blob) {
    const out = await handle.createWritable();
    this.progress.hidden = false;
    this.progress.value = 0;
    let done = 0;
    try {
      const reader = blob.stream().getReader();
      for (;;) {
        const { done: end, value } = await reader.read();
        if (end) break;
        await out.write(value);
        done += value.byteLength;
        this.progress.value = done / blob.size;
        this.status.textContent = `Writing ${handle.name}… ${bytes(done)} of ${bytes(blob.size)}`;
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
