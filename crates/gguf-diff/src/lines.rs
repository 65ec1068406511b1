//! A line diff of two texts (chat templates), bounded: Myers' O(ND) algorithm on the lines left
//! once the common first and last lines are set aside, stopped after [`MAX_EDITS`] edits or a fixed
//! amount of work. Two hostile 2 MB templates then cost milliseconds and a few MB, never
//! quadratic time: past the bounds the middle is given as removed whole and added whole, and the
//! diff says it was cut.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// The most edits (lines removed plus lines added) searched for a shortest diff. Its trace takes
/// `MAX_EDITS²` 4-byte entries at most: 4 MB.
pub const MAX_EDITS: usize = 1000;

/// Line comparisons allowed in the search, beyond which the diff is cut: about a tenth of a second.
const MAX_WORK: u64 = 1 << 26;

/// A text's lines: the pieces between `\n`s (a final `\n` leaves an empty last line, so a
/// missing final newline shows as a change). `\r` stays in the line.
pub fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split(|&c| c == b'\n').collect()
}

/// How B's lines follow from A's, as runs in order; line numbers count from 0.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineDiff {
    /// The runs, covering every line of A and of B once, in order.
    pub runs: Vec<LineRun>,
    /// The search stopped at its bounds: the runs are a correct diff but not a shortest one (the
    /// changed middle is removed whole, then added whole).
    pub cut: bool,
}

impl LineDiff {
    /// Lines of A removed.
    pub fn removed(&self) -> usize {
        self.runs
            .iter()
            .map(|r| match r {
                LineRun::Removed { len, .. } => *len,
                _ => 0,
            })
            .sum()
    }

    /// Lines of B added.
    pub fn added(&self) -> usize {
        self.runs
            .iter()
            .map(|r| match r {
                LineRun::Added { len, .. } => *len,
                _ => 0,
            })
            .sum()
    }
}

/// A run of lines: `a` and `b` are the first line's number in A and in B, `len` the lines.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRun {
    /// `len` lines the same, from line `a` of A and line `b` of B.
    Same { a: usize, b: usize, len: usize },
    /// `len` lines of A, from line `a`, not in B.
    Removed { a: usize, len: usize },
    /// `len` lines of B, from line `b`, not in A.
    Added { b: usize, len: usize },
}

/// One line's fate, before runs are formed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Removed,
    Added,
}

/// The line diff of `a` and `b`.
pub(crate) fn diff(a: &[u8], b: &[u8]) -> LineDiff {
    let (la, lb) = (lines(a), lines(b));
    // Lines as small ids, so that the search compares integers.
    let mut ids: BTreeMap<&[u8], u32> = BTreeMap::new();
    let mut id = |line| {
        let next = ids.len() as u32;
        *ids.entry(line).or_insert(next)
    };
    let ia: Vec<u32> = la.iter().map(|&l| id(l)).collect();
    let ib: Vec<u32> = lb.iter().map(|&l| id(l)).collect();
    let prefix = ia.iter().zip(&ib).take_while(|(x, y)| x == y).count();
    let suffix = ia[prefix..]
        .iter()
        .rev()
        .zip(ib[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&ia[prefix..ia.len() - suffix], &ib[prefix..ib.len() - suffix]);
    let mut ops = Vec::with_capacity(prefix + suffix);
    ops.resize(prefix, Op::Same);
    let cut = match shortest(ma, mb) {
        Some(middle) => {
            ops.extend(middle);
            false
        }
        None => {
            ops.extend(core::iter::repeat_n(Op::Removed, ma.len()));
            ops.extend(core::iter::repeat_n(Op::Added, mb.len()));
            true
        }
    };
    ops.extend(core::iter::repeat_n(Op::Same, suffix));
    LineDiff {
        runs: runs(&ops),
        cut,
    }
}

/// Ops to runs with their line numbers.
fn runs(ops: &[Op]) -> Vec<LineRun> {
    let mut runs: Vec<LineRun> = Vec::new();
    let (mut a, mut b) = (0, 0);
    for &op in ops {
        match (runs.last_mut(), op) {
            (Some(LineRun::Same { len, .. }), Op::Same)
            | (Some(LineRun::Removed { len, .. }), Op::Removed)
            | (Some(LineRun::Added { len, .. }), Op::Added) => *len += 1,
            (_, Op::Same) => runs.push(LineRun::Same { a, b, len: 1 }),
            (_, Op::Removed) => runs.push(LineRun::Removed { a, len: 1 }),
            (_, Op::Added) => runs.push(LineRun::Added { b, len: 1 }),
        }
        match op {
            Op::Same => (a, b) = (a + 1, b + 1),
            Op::Removed => a += 1,
            Op::Added => b += 1,
        }
    }
    runs
}

/// A shortest edit script from `a` to `b` (Myers 1986, the greedy forward search with its trace
/// kept for the way back), or `None` past [`MAX_EDITS`] edits or [`MAX_WORK`] comparisons.
fn shortest(a: &[u32], b: &[u32]) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as i64, b.len() as i64);
    let max_d = (a.len() + b.len()).min(MAX_EDITS) as i64;
    // The furthest x on each diagonal k = x − y, for k in −d..=d: `v[k + max_d + 1]`.
    let mut v = alloc::vec![0i64; 2 * max_d as usize + 3];
    let at = |k: i64| (k + max_d + 1) as usize;
    // After step d, v for k in −d..=d, flattened: step d starts at d².
    let mut trace: Vec<u32> = Vec::new();
    let mut work = 0u64;
    for d in 0..=max_d {
        for k in (-d..=d).step_by(2) {
            let mut x = if k == -d || (k != d && v[at(k - 1)] < v[at(k + 1)]) {
                v[at(k + 1)]
            } else {
                v[at(k - 1)] + 1
            };
            let mut y = x - k;
            let start = x;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            work += (x - start) as u64 + 1;
            v[at(k)] = x;
            if x >= n && y >= m {
                trace.extend((-d..=d).map(|k| v[at(k)] as u32));
                return Some(back(&trace, d, n, m));
            }
        }
        trace.extend((-d..=d).map(|k| v[at(k)] as u32));
        if work > MAX_WORK {
            return None;
        }
    }
    None
}

/// The ops of the path that reached (n, m) at step `d`, read back from the trace.
fn back(trace: &[u32], d: i64, n: i64, m: i64) -> Vec<Op> {
    let prev = |d: i64, k: i64| i64::from(trace[(d * d + k + d) as usize]);
    let (mut x, mut y) = (n, m);
    let mut ops = Vec::with_capacity((n + m) as usize);
    for d in (1..=d).rev() {
        let k = x - y;
        let down = k == -d || (k != d && prev(d - 1, k - 1) < prev(d - 1, k + 1));
        let pk = if down { k + 1 } else { k - 1 };
        let px = prev(d - 1, pk);
        let py = px - pk;
        // The snake after the edit, then the edit itself.
        let start = if down { px } else { px + 1 };
        ops.extend(core::iter::repeat_n(Op::Same, (x - start) as usize));
        ops.push(if down { Op::Added } else { Op::Removed });
        (x, y) = (px, py);
    }
    ops.extend(core::iter::repeat_n(Op::Same, x as usize));
    ops.reverse();
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cover_both_texts() {
        let d = diff(b"a\nb\nc\nd", b"a\nx\nc\nd\ne");
        assert_eq!(
            d.runs,
            [
                LineRun::Same { a: 0, b: 0, len: 1 },
                LineRun::Removed { a: 1, len: 1 },
                LineRun::Added { b: 1, len: 1 },
                LineRun::Same { a: 2, b: 2, len: 2 },
                LineRun::Added { b: 4, len: 1 },
            ]
        );
        assert!(!d.cut);
    }
}
