// The chat template preview's worker: renders a template with gguf-template-wasm, a module of its
// own fetched on the first preview, off the page's thread. Messages (template-client.js):
//   page → worker  {request, template, bos, eos, addGenerationPrompt}
//   worker → page  {request, kind: 'started', timeLimitMs}, then
//                  {request, kind: 'rendered', output} or {request, kind: 'failed', error: {message, line}, closed}.
// A render runs on a fuel budget; the page terminates this worker if one outlasts `timeLimitMs`,
// and this worker closes itself (`closed: true`) when the engine cannot be loaded, traps (out of
// its 256 MiB, say) or overflows its stack, so the next preview starts afresh.

import init, { RenderFailure, render, timeLimitMs } from './pkg-template/gguf_template_wasm.js';

const ready = init();

self.onmessage = async ({ data }) => {
  const { request } = data;
  try {
    await ready;
  } catch (e) {
    postMessage({ request, kind: 'failed', error: { message: `the template engine could not be loaded: ${e.message}`, line: null }, closed: true });
    return self.close();
  }
  postMessage({ request, kind: 'started', timeLimitMs: timeLimitMs() });
  try {
    const output = render(data.template, data.bos, data.eos, data.addGenerationPrompt);
    postMessage({ request, kind: 'rendered', output });
  } catch (e) {
    if (e instanceof RenderFailure) {
      postMessage({ request, kind: 'failed', error: { message: e.message, line: e.line ?? null } });
      return e.free();
    }
    // A trap or a stack overflow: the module's state cannot be trusted after it.
    const message = `the template engine stopped: ${e.message} (a template that needs more memory or stack than the engine has)`;
    postMessage({ request, kind: 'failed', error: { message, line: null }, closed: true });
    self.close();
  }
};
