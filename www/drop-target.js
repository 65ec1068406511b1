// The whole window as a drop target for files, with an overlay while something is dragged over.

/**
 * Calls `onFiles(files)` for the files dropped anywhere on the window (several at once: the
 * shards of a split model).
 * @param {HTMLElement} overlay  Shown while a file is dragged over the window.
 */
export function dropTarget(overlay, onFiles) {
  let depth = 0; // dragenter/dragleave fire for every child element crossed
  const carriesFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  const hide = () => {
    depth = 0;
    overlay.hidden = true;
  };
  window.addEventListener('dragenter', (e) => {
    if (!carriesFiles(e)) return;
    depth += 1;
    overlay.hidden = false;
  });
  window.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) overlay.hidden = true;
  });
  window.addEventListener('dragover', (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault(); // allows the drop
    e.dataTransfer.dropEffect = 'copy';
  });
  window.addEventListener('drop', (e) => {
    hide();
    if (e.defaultPrevented) return; // a drop zone of its own took the files (Compare's)
    e.preventDefault(); // the browser would otherwise navigate to the file
    const files = [...(e.dataTransfer?.files ?? [])];
    if (files.length > 0) onFiles(files);
  });
}
