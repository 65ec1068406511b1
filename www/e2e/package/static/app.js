// The package's files copied as they are into ggufscope/ beside this page: no bundler, no build.
import { open } from './ggufscope/web/gguf.js';

const report = await open('sample.gguf');
document.getElementById('architecture').textContent = report.architecture;
document.getElementById('tensor-count').textContent = String(report.tensor_count);
document.body.dataset.opened = 'yes';
