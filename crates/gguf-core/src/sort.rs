//! The crate's one sort: a heapsort, in place, O(n log n), no allocation. Each instantiation of
//! the standard library's sort costs the viewer's wasm module kilobytes — and that module must
//! stay under 100 KB gzipped —, this one a few hundred bytes. Not stable: callers give a total
//! order wherever the order of ties would show.

use core::cmp::Ordering;

/// Sorts `v` by `order`, ascending.
pub(crate) fn sort_by<T>(v: &mut [T], mut order: impl FnMut(&T, &T) -> Ordering) {
    for start in (0..v.len() / 2).rev() {
        sift_down(v, start, v.len(), &mut order);
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        sift_down(v, 0, end, &mut order);
    }
}

/// Moves `v[root]` down the heap `v[..end]` until it is no less than its children.
fn sift_down<T>(v: &mut [T], mut root: usize, end: usize, order: &mut impl FnMut(&T, &T) -> Ordering) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && order(&v[child], &v[child + 1]) == Ordering::Less {
            child += 1;
        }
        if order(&v[root], &v[child]) != Ordering::Less {
            return;
        }
        v.swap(root, child);
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
