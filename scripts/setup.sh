# Installs what the project needs and is missing; sourced by scripts/run.sh and scripts/test.sh.
# Every step checks first, so a second run costs nothing.

have() { command -v "$1" >/dev/null 2>&1; }
note() { printf '  setup: %s\n' "$*" >&2; }

if ! have cargo; then
  echo "Rust is not installed: see https://rustup.rs (this project needs Rust 1.85 or newer)" >&2
  exit 1
fi

for target in x86_64-unknown-none; do
  if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    note "adding Rust target $target"
    rustup target add "$target" >&2
  fi
done
