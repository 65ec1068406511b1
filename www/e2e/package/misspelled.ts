// A misspelled report field: `tsc --noEmit` must reject it.
import { open } from 'ggufscope';

const report = await open('model.gguf');
export const tensors = report.tensor_cuont;
