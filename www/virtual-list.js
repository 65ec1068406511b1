// A list of any length in a scroll box, with only the rows in view in the DOM. Rows come in pages
// from an async source (the worker); scrolling only does arithmetic and schedules a frame, so it
// never waits for them: rows not yet loaded show as empty until their page arrives.

import { h } from './dom.js';

/** Rows asked for at a time; at least a screenful. */
const PAGE = 100;
/** Rows kept beyond the visible ones, above and below. */
const OVERSCAN = 10;
/** Rows kept in memory before the cache is dropped. */
const CACHE_LIMIT = 5000;
/** Rows the box shows at most; a shorter list gets a shorter box. */
const BOX_ROWS = 16;

export class VirtualList {
  /**
   * @param {object} options
   * @param {number} options.rowHeight  Pixels per row (the CSS must give rows this height).
   * @param {(item: any, index: number) => HTMLElement} options.renderRow
   * @param {(start: number, count: number) => Promise<any[]|null>} options.loadPage  Rows
   *   `start..start + count` of the current listing, or null when it was replaced meanwhile.
   */
  constructor({ rowHeight, renderRow, loadPage }) {
    this.rowHeight = rowHeight;
    this.renderRow = renderRow;
    this.loadPage = loadPage;
    this.total = 0;
    this.rows = new Map(); // index → item
    this.loading = new Set(); // page starts asked for
    this.generation = 0;
    this.highlighted = null;
    this.frame = 0;
    this.spacer = h('div', { class: 'vlist-spacer' });
    this.layer = h('div', { class: 'vlist-rows', role: 'rowgroup' });
    this.element = h('div', { class: 'vlist', tabindex: 0, role: 'table' }, this.spacer, this.layer);
    this.element.addEventListener('scroll', () => this.#schedule());
  }

  /** Shows a new listing of `total` rows, with its first rows when already at hand. */
  reset(total, first = []) {
    this.generation += 1;
    this.total = total;
    this.highlighted = null;
    this.rows.clear();
    this.loading.clear();
    first.forEach((item, i) => this.rows.set(i, item));
    this.spacer.style.height = `${total * this.rowHeight}px`;
    this.element.style.height = `${Math.min(Math.max(total, 1), BOX_ROWS) * this.rowHeight + 2}px`;
    this.element.scrollTop = 0;
    this.#paint();
  }

  /** Scrolls row `index` to the top and marks it. */
  reveal(index) {
    this.highlighted = index;
    this.element.scrollTop = index * this.rowHeight;
    this.#paint();
  }

  #schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => ((this.frame = 0), this.#paint()));
  }

  /** Puts the rows in view into the DOM and asks for the pages of those missing. */
  #paint() {
    const first = Math.max(0, Math.floor(this.element.scrollTop / this.rowHeight) - OVERSCAN);
    const visible = Math.ceil(this.element.clientHeight / this.rowHeight) + 2 * OVERSCAN;
    const end = Math.min(this.total, first + visible);
    const rows = [];
    for (let i = first; i < end; i++) {
      const item = this.rows.get(i);
      if (item === undefined) this.#load(Math.floor(i / PAGE) * PAGE);
      const row =
        item === undefined
          ? h('div', { class: 'vlist-row pending', role: 'row' }, h('span', { role: 'cell' }))
          : this.renderRow(item, i);
      row.style.transform = `translateY(${i * this.rowHeight}px)`;
      if (i === this.highlighted) row.classList.add('current');
      rows.push(row);
    }
    this.layer.replaceChildren(...rows);
  }

  async #load(start) {
    if (this.loading.has(start)) return;
    this.loading.add(start);
    const generation = this.generation;
    const items = await this.loadPage(start, Math.min(PAGE, this.total - start)).catch(() => null);
    if (generation !== this.generation || !items) return;
    if (this.rows.size > CACHE_LIMIT) {
      for (const i of this.rows.keys()) if (Math.abs(i - start) > CACHE_LIMIT / 2) this.rows.delete(i);
    }
    items.forEach((item, i) => this.rows.set(start + i, item));
    this.loading.delete(start);
    this.#schedule();
  }
}
