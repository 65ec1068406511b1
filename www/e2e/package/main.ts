// A user's Vite app: the library and the viewer element from the installed package, typed.
import { open, type Report } from 'ggufscope';
import 'ggufscope/viewer';

const report: Report = await open('sample.gguf');
document.getElementById('architecture')!.textContent = String(report.architecture);
document.getElementById('tensor-count')!.textContent = String(report.tensor_count);
document.body.dataset.opened = 'yes';

const viewer = document.querySelector('gguf-viewer')!;
viewer.addEventListener('load', ({ detail }) => (document.body.dataset.viewerTensors = String(detail.tensor_count)));
viewer.setAttribute('src', 'sample.gguf');
