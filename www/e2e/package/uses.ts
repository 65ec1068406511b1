// Correct use of the API, checked by `tsc --noEmit` against the installed package's declarations.
import {
  compare,
  edit,
  editSession,
  fit,
  open,
  upstream,
  type MemoryDocument,
  type ParseError,
  type Report,
} from 'ggufscope';
import { GgufViewerElement } from 'ggufscope/viewer';

export async function summary(file: File): Promise<string> {
  const report: Report = await open(file, {
    onProgress: ({ bytesRead, fileSize }) => console.log(bytesRead / fileSize),
  });
  const tensors: number | bigint = report.tensor_count;
  const names: string[] = report.tensors.map((t) => t.name);
  const keys: string[] = report.metadata.map((entry) => entry.key);
  return `${report.architecture}: ${tensors} tensors (${names[0]}), ${keys.length} keys`;
}

export async function fix(file: File): Promise<number> {
  const fixed: Blob = await edit(file, [{ set: 'tokenizer.ggml.eos_token_id', value: 106 }, { delete: 'general.url' }]);
  const session = await editSession(fixed);
  const { refusals } = await session.check([{ set: 'general.name', value: 'x' }]);
  session.free();
  const diff = await compare(file, fixed, { names: ['before', 'after'] });
  const checked = await upstream(file, { config: '{}' });
  return refusals.length + diff.differences + checked.differences;
}

export async function fits(file: File, ram: number): Promise<boolean> {
  const memory: MemoryDocument = await fit(await open(file), { ctx: 8192, ctk: 'q8_0', ctv: 'q8_0', flashAttn: 'on' });
  const sliding: number = memory.groups.filter((g) => g.sliding).length;
  return Number(memory.total) <= ram && sliding >= 0;
}

export function failed(e: ParseError): string {
  return `${e.code}: ${e.message} at ${e.offset ?? '?'}`;
}

export function viewerOf(): GgufViewerElement {
  const viewer = document.createElement('gguf-viewer');
  viewer.addEventListener('load', ({ detail }) => console.log(detail.architecture));
  viewer.addEventListener('error', ({ detail }) => console.log(detail.kind));
  return viewer;
}
