// The wasm package hands u64 figures over as BigInt so that none loses precision. Most are far
// below 2^53; those become plain numbers here so the page can compute with them. Values above
// 2^53 (a 2^60 offset in a hostile file, say) stay BigInt: code that shows or compares figures
// must accept both.

/** Returns `value` with every BigInt that is a safe integer turned into a number, recursively. */
export function safeNumbers(value) {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = safeNumbers(value[i]);
    return value;
  }
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) value[key] = safeNumbers(value[key]);
  }
  return value;
}
