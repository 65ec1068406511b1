// A user's app, the same for every bundler: the library and the viewer element from the installed
// package, each showing the sample. No top-level await: Vite 5 and 6 build for browsers without it.
import { open } from 'ggufscope';
import 'ggufscope/viewer';

open('sample.gguf').then(
  (report) => {
    document.getElementById('architecture').textContent = String(report.architecture);
    document.getElementById('tensor-count').textContent = String(report.tensor_count);
    document.body.dataset.opened = 'yes';
  },
  (e) => (document.body.dataset.opened = `failed: ${e.message}`),
);
document.querySelector('gguf-viewer').setAttribute('src', 'sample.gguf');
