// The page's side of the chat template preview: renders in a worker of its own
// (template-worker.js), started on the first render so that the template engine is fetched only
// when a preview is asked for. A render that outlasts the engine's time limit is stopped by
// terminating that worker; the next render starts another. No DOM.

/** Renders chat templates off the page's thread. */
export class TemplateClient {
  #worker = null;
  #pending = new Map(); // request number → {resolve, reject, timer}
  #nextRequest = 0;

  /**
   * Renders `template` for the sample conversation (system, user, assistant, user) with the
   * file's bos and eos texts. Resolves the text; rejects with `{message, line}` (`line` in the
   * template, or null).
   * @param {string} template
   * @param {{bos: string, eos: string, addGenerationPrompt: boolean}} options
   * @returns {Promise<string>}
   */
  render(template, { bos, eos, addGenerationPrompt }) {
    const request = this.#nextRequest++;
    this.#start().postMessage({ request, template, bos, eos, addGenerationPrompt });
    return new Promise((resolve, reject) => this.#pending.set(request, { resolve, reject, timer: null }));
  }

  /** Stops the worker; renders still running reject. */
  close() {
    this.#stop({ message: 'stopped: the preview was closed', line: null });
  }

  #start() {
    if (!this.#worker) {
      this.#worker = new Worker(new URL('./template-worker.js', import.meta.url), { type: 'module' });
      this.#worker.onmessage = ({ data }) => this.#receive(data);
      this.#worker.onerror = (e) => this.#stop({ message: `the template engine failed: ${e.message ?? 'it could not be loaded'}`, line: null });
    }
    return this.#worker;
  }

  #stop(error) {
    this.#worker?.terminate();
    this.#worker = null;
    for (const { reject, timer } of this.#pending.values()) {
      clearTimeout(timer);
      reject(error);
    }
    this.#pending.clear();
  }

  #receive({ request, kind, timeLimitMs, output, error, closed }) {
    const pending = this.#pending.get(request);
    if (!pending) return;
    if (kind === 'started') {
      const seconds = timeLimitMs / 1000;
      pending.timer = setTimeout(() => this.#stop({ message: `stopped: the template ran for more than ${seconds} s`, line: null }), timeLimitMs);
      return;
    }
    clearTimeout(pending.timer);
    this.#pending.delete(request);
    if (kind === 'rendered') pending.resolve(output);
    else pending.reject(error);
    if (closed) this.#stop(error); // the worker is gone: the next render starts another
  }
}
