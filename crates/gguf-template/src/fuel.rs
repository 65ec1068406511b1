//! `join` and `format` charged for what they make before they make it. The engine charges a
//! filter's result once it exists, and checks ahead only part of these two: `join` with no
//! joiner, or `format` with a long argument repeated by many `%s`, would build a string of
//! gigabytes (`(['x' * 1000000] * 9000)|join`) before its fuel is counted. These wrappers measure
//! the result first — each item's text counted without being kept, and no further than the fuel
//! left could pay for — and refuse it when the fuel left cannot pay for it, then call the
//! engine's own filter.

use std::fmt::{self, Write};

use minijinja::value::{Kwargs, Rest, StringInput, Value, ValueOrKwargs};
use minijinja::{Error, ErrorKind, State, filters};

/// Bytes one unit of fuel pays for (the engine's `UNITS_PER_FUEL`).
const BYTES_PER_FUEL: u64 = 64;

/// The engine's `join`, once the fuel left can pay for its result.
pub fn join(
    state: &mut State<'_, '_>,
    value: &Value,
    joiner: Option<StringInput<'_>>,
    attribute: Option<&str>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let affordable = affordable_bytes(state);
    let joiner_len = joiner
        .as_ref()
        .map(|j| j.as_str().len())
        .or_else(|| kwargs.peek::<Option<&str>>("d").ok().flatten().map(str::len))
        .unwrap_or(0) as u64;
    if let Ok(items) = value.try_iter() {
        let mut total = 0u64;
        for (i, item) in items.enumerate() {
            state.consume_fuel(1)?;
            let joined = if i > 0 { joiner_len } else { 0 };
            total = total.saturating_add(joined);
            total = total.saturating_add(text_len(&item, affordable.saturating_sub(total)));
            if total >= affordable {
                return Err(too_big("join", total));
            }
        }
    }
    filters::join(state, value, joiner, attribute, kwargs)
}

/// The engine's `format`, once the fuel left can pay for its result: the format string, and for
/// each `%` a width or precision as written and the longest argument's text.
pub fn format(
    state: &mut State<'_, '_>,
    format_str: &Value,
    args: Rest<ValueOrKwargs>,
) -> Result<Value, Error> {
    if let Some(spec) = format_str.as_str() {
        let affordable = affordable_bytes(state);
        let longest = args.iter().map(|a| text_len(a, affordable)).max().unwrap_or(0);
        let specs = spec.matches('%').count() as u64;
        let total = (spec.len() as u64)
            .saturating_add(specs.saturating_mul(longest))
            .saturating_add(numbers_after_percent(spec));
        if total >= affordable {
            return Err(too_big("format", total));
        }
    }
    filters::format(state, format_str, args)
}

/// The bytes the fuel left pays for.
fn affordable_bytes(state: &State<'_, '_>) -> u64 {
    state
        .fuel_levels()
        .map_or(u64::MAX, |(_, left)| left.saturating_mul(BYTES_PER_FUEL))
}

/// The length of `value`'s text, counted up to `limit` (past it, `limit`).
fn text_len(value: &Value, limit: u64) -> u64 {
    if let Some(s) = value.as_str() {
        return s.len() as u64;
    }
    let mut counter = Counter { len: 0, limit };
    let _ = write!(counter, "{value}");
    counter.len.min(limit)
}

/// Counts the bytes written to it, keeping none, and stops the writer past `limit`.
struct Counter {
    len: u64,
    limit: u64,
}

impl Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.len = self.len.saturating_add(s.len() as u64);
        if self.len > self.limit {
            Err(fmt::Error)
        } else {
            Ok(())
        }
    }
}

/// The sum of the numbers right after each `%` (flags skipped): the widths and precisions that
/// pad a result, e.g. `%-1000000s` or `%.500000f`.
fn numbers_after_percent(spec: &str) -> u64 {
    /// The number at the start of `s` (saturated), and what follows it.
    fn number(s: &str) -> (u64, &str) {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let n = s[..end].bytes().fold(0u64, |n, d| {
            n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
        });
        (n, &s[end..])
    }
    spec.split('%')
        .skip(1)
        .map(|part| {
            let (width, rest) = number(part.trim_start_matches(['-', '+', ' ', '#', '0']));
            let precision = rest.strip_prefix('.').map_or(0, |r| number(r).0);
            width.saturating_add(precision)
        })
        .fold(0, u64::saturating_add)
}

fn too_big(filter: &str, bytes: u64) -> Error {
    Error::new(
        ErrorKind::OutOfFuel,
        format!("`{filter}` would make {bytes} bytes, more than the fuel left pays for"),
    )
}
