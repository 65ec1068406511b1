// The parser worker's watchdog. While the page waits on the worker, it pings the worker every
// quarter of its budget. A worker whose thread is free answers at once — also while it waits on a
// read or a download — so a ping left unanswered for the whole budget means that one synchronous
// step (a wasm call that does not return) has held its thread that long. Work that is long but
// made of steps — a header read slice by slice, a tensor peek chunk by chunk, a slow server — is
// never stopped. No DOM, so it runs in any page and under Node.

/**
 * How long one step may hold the worker's thread before the watchdog ends it: 10 s. The longest
 * step of a real header — the last slice of a 262,144-token vocabulary decoded, and its report —
 * takes 0.2 s here, so a slow device has room fifty times over. A server that sends nothing for
 * as long is given up too (http-blob.js).
 */
export const WATCHDOG_MS = 10_000;

export class Watchdog {
  #budget;
  #ping;
  #onStall;
  #now;
  #timer = null;
  #pingedAt = null; // when the ping not answered yet was sent
  #lastTick = 0;

  /**
   * @param {number} budgetMs  How long a ping may go unanswered.
   * @param {object} hooks
   * @param {() => void} hooks.ping  Sends a ping to the worker.
   * @param {() => void} hooks.onStall  Called once when a ping has gone unanswered for the budget; watching stops.
   * @param {() => number} [hooks.now]  The clock, in milliseconds.
   */
  constructor(budgetMs, { ping, onStall, now = () => performance.now() }) {
    this.#budget = budgetMs;
    this.#ping = ping;
    this.#onStall = onStall;
    this.#now = now;
  }

  /** Watches while `waiting` (the page waits on the worker for something), and stops otherwise. */
  watch(waiting) {
    if (waiting === (this.#timer !== null)) return;
    if (waiting) {
      this.#lastTick = this.#now();
      this.#next();
    } else {
      clearTimeout(this.#timer);
      this.#timer = null;
      this.#pingedAt = null;
    }
  }

  /** The worker answered the ping. */
  answered() {
    this.#pingedAt = null;
  }

  #next() {
    this.#timer = setTimeout(() => this.#tick(), this.#budget / 4);
  }

  #tick() {
    const now = this.#now();
    // A tick that comes late means this page's own thread was held: the answer may be waiting
    // behind it, so the worker is judged at the next tick that comes on time.
    const late = now - this.#lastTick > this.#budget / 2;
    this.#lastTick = now;
    if (this.#pingedAt !== null && !late && now - this.#pingedAt >= this.#budget) {
      this.watch(false);
      return this.#onStall();
    }
    this.#next();
    if (this.#pingedAt === null) {
      this.#pingedAt = now;
      this.#ping();
    }
  }
}
