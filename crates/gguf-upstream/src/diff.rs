//! A line diff of two chat templates, bounded for hostile input: common leading and trailing
//! lines are set aside, the rest is compared by Myers' algorithm on line ids for at most
//! [`MAX_EDITS`] edits (time O((n + m) · D), memory O(D²)); beyond that, or past
//! [`MAX_LINES`] lines, the differing middle is shown as replaced whole. The output stops after
//! [`MAX_OUTPUT`] lines.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

/// Edits searched for before the middle is shown as replaced whole.
pub const MAX_EDITS: usize = 1000;
/// Lines (of either side's differing middle) past which it is shown as replaced whole.
pub const MAX_LINES: usize = 20_000;
/// Diff lines given at most.
pub const MAX_OUTPUT: usize = 400;
/// Unchanged lines shown around each change.
const CONTEXT: usize = 2;

/// The lines that differ, in hunks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineDiff {
    /// The hunks, in order.
    pub hunks: Vec<Hunk>,
    /// False when the output was cut at [`MAX_OUTPUT`] lines.
    pub complete: bool,
}

/// A run of changes with the unchanged lines around them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hunk {
    /// The hunk's first line in the file's template (from 1).
    pub gguf_line: usize,
    /// The hunk's first line in upstream's template (from 1).
    pub upstream_line: usize,
    /// The lines, each starting with `' '` (in both), `'-'` (only the file's) or `'+'` (only
    /// upstream's).
    pub lines: Vec<String>,
}

/// A change: lines `a` of the file's template replaced by lines `b` of upstream's.
#[derive(Debug, Clone, Copy)]
struct Change {
    a: (usize, usize),
    b: (usize, usize),
}

/// The line diff from `gguf` (`-`) to `upstream` (`+`).
pub fn line_diff(gguf: &str, upstream: &str) -> LineDiff {
    let a: Vec<&str> = gguf.split('\n').collect();
    let b: Vec<&str> = upstream.split('\n').collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let whole = Change {
        a: (prefix, prefix + a_mid.len()),
        b: (prefix, prefix + b_mid.len()),
    };
    let changes = if a_mid.len() > MAX_LINES || b_mid.len() > MAX_LINES {
        alloc::vec![whole]
    } else {
        let (x, y) = ids(a_mid, b_mid);
        myers(&x, &y).map_or_else(
            || alloc::vec![whole],
            |changes| {
                changes
                    .into_iter()
                    .map(|c| Change {
                        a: (c.a.0 + prefix, c.a.1 + prefix),
                        b: (c.b.0 + prefix, c.b.1 + prefix),
                    })
                    .collect()
            },
        )
    };
    hunks(&a, &b, &changes)
}

/// Each distinct line as a number, so that comparisons cost O(1) whatever the lines' length.
fn ids<'t>(a: &[&'t str], b: &[&'t str]) -> (Vec<u32>, Vec<u32>) {
    let mut table: BTreeMap<&'t str, u32> = BTreeMap::new();
    let mut id = |line: &'t str| {
        let next = table.len() as u32;
        *table.entry(line).or_insert(next)
    };
    let x = a.iter().map(|l| id(l)).collect();
    let y = b.iter().map(|l| id(l)).collect();
    (x, y)
}

/// The changes from `a` to `b` in a shortest edit script, or `None` past [`MAX_EDITS`] edits.
fn myers(a: &[u32], b: &[u32]) -> Option<Vec<Change>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    // trace[d][k + d]: the furthest x on diagonal k after d edits.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let mut end = None;
    'search: for d in 0..=(MAX_EDITS as isize).min(n + m) {
        let mut row = alloc::vec![0isize; 2 * d as usize + 1];
        for k in (-d..=d).step_by(2) {
            let prev = |k: isize| trace[d as usize - 1][(k + d - 1) as usize];
            let mut x = if d == 0 {
                0
            } else if k == -d || (k != d && prev(k - 1) < prev(k + 1)) {
                prev(k + 1)
            } else {
                prev(k - 1) + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            row[(k + d) as usize] = x;
            if x >= n && y >= m {
                trace.push(row);
                end = Some(d);
                break 'search;
            }
        }
        trace.push(row);
    }
    let d_end = end?;
    // Walk back, collecting one-line edits as (x, y, is_insert), last first.
    let (mut x, mut y) = (n, m);
    let mut edits = Vec::new();
    for d in (1..=d_end).rev() {
        let k = x - y;
        let prev = |k: isize| trace[d as usize - 1][(k + d - 1) as usize];
        let down = k == -d || (k != d && prev(k - 1) < prev(k + 1));
        let prev_k = if down { k + 1 } else { k - 1 };
        let prev_x = prev(prev_k);
        let prev_y = prev_x - prev_k;
        // The edit leaves (prev_x, prev_y): down inserts b[prev_y], right deletes a[prev_x].
        edits.push((prev_x as usize, prev_y as usize, down));
        x = prev_x;
        y = prev_y;
    }
    edits.reverse();
    // Merge consecutive edits into changes: an insert at (x, y) adds b[y]; a delete removes a[x].
    let mut changes: Vec<Change> = Vec::new();
    for (a_line, b_line, insert) in edits {
        match changes.last_mut() {
            Some(c) if c.a.1 == a_line && c.b.1 == b_line => {
                if insert {
                    c.b.1 += 1;
                } else {
                    c.a.1 += 1;
                }
            }
            _ => changes.push(Change {
                a: (a_line, a_line + usize::from(!insert)),
                b: (b_line, b_line + usize::from(insert)),
            }),
        }
    }
    Some(changes)
}

/// The changes as hunks, with [`CONTEXT`] lines around them, nearby changes in one hunk.
fn hunks(a: &[&str], b: &[&str], changes: &[Change]) -> LineDiff {
    let mut out = LineDiff {
        hunks: Vec::new(),
        complete: true,
    };
    let mut shown = 0;
    let mut i = 0;
    while i < changes.len() {
        // The changes that share this hunk: at most 2 × CONTEXT unchanged lines apart.
        let mut j = i;
        while j + 1 < changes.len() && changes[j + 1].a.0 - changes[j].a.1 <= 2 * CONTEXT {
            j += 1;
        }
        let start = changes[i].a.0.saturating_sub(CONTEXT);
        let lead = changes[i].a.0 - start;
        let mut hunk = Hunk {
            gguf_line: start + 1,
            upstream_line: changes[i].b.0 - lead + 1,
            lines: Vec::new(),
        };
        let mut line = |hunk: &mut Hunk, mark: char, text: &str| {
            if shown == MAX_OUTPUT {
                out.complete = false;
                return;
            }
            shown += 1;
            let mut l = String::with_capacity(text.len() + 1);
            l.push(mark);
            l.push_str(text);
            hunk.lines.push(l);
        };
        for text in &a[start..changes[i].a.0] {
            line(&mut hunk, ' ', text);
        }
        for k in i..=j {
            let c = changes[k];
            for text in &a[c.a.0..c.a.1] {
                line(&mut hunk, '-', text);
            }
            for text in &b[c.b.0..c.b.1] {
                line(&mut hunk, '+', text);
            }
            let next = if k < j {
                changes[k + 1].a.0
            } else {
                (c.a.1 + CONTEXT).min(a.len())
            };
            for text in &a[c.a.1..next] {
                line(&mut hunk, ' ', text);
            }
        }
        out.hunks.push(hunk);
        i = j + 1;
    }
    out
}
