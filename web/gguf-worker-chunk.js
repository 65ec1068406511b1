// The worker as one of an app's own chunks, for a bundler that writes no file for `new
// URL('./gguf-worker.js', import.meta.url)` (esbuild, Rollup without plugins; gguf-client.js
// tells): the page imports this module — which the bundler splits off, as it does any `import()`
// — for its URL, and starts the worker on it. The package ships it pre-bundled into one file
// whose only imports are each wasm module's bytes, as modules of their own (scripts/bundle-web.mjs);
// as the site has it, it is the worker's modules themselves. Imported on a page it does nothing
// (gguf-worker.js serves only in a worker of its own).

import './gguf-worker.js';

/** Where this module is: the script the worker runs. */
export const workerUrl = import.meta.url;
