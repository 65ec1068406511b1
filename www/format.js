// Numbers as people read them; the same rules as the CLI (crates/gguf-cli/src/format.rs).
// Figures may be numbers or, above 2^53, BigInt (web/numbers.js): every function takes both.

/** `7615616512` → `"7.62 B"`; `268098176` → `"268.10 M"`. */
export function count(n) {
  return (
    scaled(
      n,
      [
        [1e12, 'T'],
        [1e9, 'B'],
        [1e6, 'M'],
        [1e3, 'K'],
      ],
      2,
    ) ?? String(n)
  );
}

/** `253113024` → `"253.1 MB"` (decimal units, as file managers and model hubs show sizes). */
export function bytes(n) {
  return (
    scaled(
      n,
      [
        [1e12, 'TB'],
        [1e9, 'GB'],
        [1e6, 'MB'],
        [1e3, 'kB'],
      ],
      1,
    ) ?? `${n} B`
  );
}

/** `343932928` → `"328.00 MiB"`: binary units, as llama.cpp's logs and device memory give sizes. */
export function mib(n) {
  return `${(Number(n) / 2 ** 20).toFixed(2)} MiB`;
}

/** `25769803776` → `"24.00 GiB"`. */
export function gib(n) {
  return `${(Number(n) / 2 ** 30).toFixed(2)} GiB`;
}

function scaled(n, units, digits) {
  const x = Number(n);
  for (const [scale, unit] of units) {
    if (x >= scale) return `${(x / scale).toFixed(digits)} ${unit}`;
  }
  return null;
}

/** `7615616512` → `"7,615,616,512"` (exact, BigInt included). */
export function grouped(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * A number with its integer digits grouped, whole or not: `1000000` → `"1,000,000"`,
 * `10000.5` → `"10,000.5"` (RoPE bases and other floats read like every other figure).
 */
export function groupedNumber(x) {
  if (typeof x !== 'number' || !Number.isFinite(x) || Math.abs(x) >= 1e21) return String(x);
  const [whole, fraction] = String(x).split('.');
  return fraction === undefined ? grouped(whole) : `${grouped(whole)}.${fraction}`;
}

/**
 * `part` of `total` as a percentage with up to two decimals, never rounded to a figure that hides
 * it: 30 of 10,000,000 is "<0.01%", not "0%"; all but one of them ">99.99%", not "100%".
 */
export function percent(part, total) {
  const n = Number(part);
  const all = Number(total);
  if (!all) return '—';
  const p = (100 * n) / all;
  if (n > 0 && p < 0.01) return '<0.01%';
  if (n < all && p > 99.99) return '>99.99%';
  return `${Number(p.toFixed(2))}%`;
}

/** `1` → `"1 row"`, `2048` → `"2,048 rows"`: a count with its noun, singular or plural. */
export function counted(n, noun, plural = `${noun}s`) {
  return `${grouped(n)} ${Number(n) === 1 ? noun : plural}`;
}

/** `10304` → `"0x2840"`. */
export function hex(n) {
  return `0x${n.toString(16)}`;
}

/** A float with up to `digits` decimals and no trailing zeros: `5.220079` → `"5.22"`. */
export function decimal(x, digits = 2) {
  return typeof x === 'number' ? String(Number(x.toFixed(digits))) : String(x);
}

/**
 * `null`/`undefined` → `"—"`, else the value formatted by `fmt`.
 * @param {any} value
 * @param {(value: any) => string} [fmt]
 */
export function orDash(value, fmt = String) {
  return value === null || value === undefined ? '—' : fmt(value);
}

/**
 * A FLOAT32 value as written: the shortest decimal that reads back as the same f32, so 1e-5
 * stored as f32 shows as "0.00001", not as its f64 widening "0.000009999999747378752".
 */
export function float32(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return String(x);
  for (let digits = 1; digits < 9; digits++) {
    const shorter = Number(x.toPrecision(digits));
    if (Math.fround(shorter) === x) return String(shorter);
  }
  return String(x);
}

/**
 * A statistic as `ggufscope tensor` prints it: six decimals, or five significant digits in
 * exponent form below 0.001 and from a million. NaN and infinities (`"nan"`, `"inf"`) as named.
 */
export function statistic(x) {
  if (typeof x !== 'number') return String(x);
  return x !== 0 && (Math.abs(x) < 1e-3 || Math.abs(x) >= 1e6) ? x.toExponential(4) : x.toFixed(6);
}
