//! The crate's one sort: a heapsort, in place, O(n log n), no allocation. Each instantiation of
//! the standard library's sort costs the viewer's wasm module kilobytes — and that module must
//! stay under 100 KB gzipped —, this one a few hundred bytes. Not stable: callers give a total
//! order wherever the order of ties would show.

use core::cmp::Ordering;

/// Sorts `v` by `order`, ascending.
pub(crate) fn sort_by<T>(v: &mut [T], mut order: impl FnMut(&T, &T) -> Ordering) {
    let len = v.len();
    // One heapsort for every element type: per type only this closure is compiled.
    heapsort(len, &mut |i, j, step| match step {
        Step::Less => order(&v[i], &v[j]) == Ordering::Less,
        Step::Swap => {
            v.swap(i, j);
            true
        }
    });
}

/// What [`heapsort`] asks of the slice: whether element `i` is less than `j`, or to swap them.
enum Step {
    Less,
    Swap,
}

type Slice<'a> = &'a mut dyn FnMut(usize, usize, Step) -> bool;

fn heapsort(len: usize, slice: Slice<'_>) {
    for start in (0..len / 2).rev() {
        sift_down(slice, start, len);
    }
    for end in (1..len).rev() {
        slice(0, end, Step::Swap);
        sift_down(slice, 0, end);
    }
}

/// Moves element `root` down the heap of the first `end` elements until it is no less than its
/// children.
fn sift_down(slice: Slice<'_>, mut root: usize, end: usize) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && slice(child, child + 1, Step::Less) {
            child += 1;
        }
        if !slice(root, child, Step::Less) {
            return;
        }
        slice(root, child, Step::Swap);
        root = child;
    }
}

#[cfg(test)]
mod tests {
    use super::sort_by;
    use alloc::vec::Vec;

    #[test]
    fn sorts_as_the_standard_sort() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for len in [0usize, 1, 2, 3, 7, 64, 1000] {
            let mut v: Vec<(u64, u64, u64)> = (0..len)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 60, (seed >> 30) & 7, i as u64)
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_unstable();
            sort_by(&mut v, Ord::cmp);
            assert_eq!(v, expected, "{len} elements");
        }
    }
}
