//! One stable sort for every element type: the standard library's `sort_by` is compiled once per
//! element type and comparison (about 5 KB of WebAssembly each, 16 of them in the page's worker:
//! docs/performance.md, "Page bundle"). These functions sort the positions `0..len` with a single
//! compiled `sort_by` on `usize` that calls the comparison through `&mut dyn FnMut`, then move the
//! elements into that order. Same result as `slice::sort_by` (stable), at the price of an indirect
//! call per comparison and a `Vec<usize>` of the slice's length: for the engine's and the page's
//! sorts of lists, never for the per-cell or per-row decoding.

use core::cmp::Ordering;
use std::collections::BTreeMap;

/// Sorts `v` by `compare`, stable (equal elements keep their order), as `slice::sort_by`.
pub fn sort_by<T>(v: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let mut order: Vec<usize> = (0..v.len()).collect();
    {
        let items: &[T] = v;
        sort_positions(&mut order, &mut |a, b| match (items.get(a), items.get(b)) {
            (Some(a), Some(b)) => compare(a, b),
            _ => Ordering::Equal,
        });
    }
    permute(v, &mut order);
}

/// Sorts `v` by the key `key` gives, stable, as `slice::sort_by_key`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` in ascending order, as `slice::sort` (and `sort_unstable`: for a total order with
/// no distinct equal elements, the result is the same).
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// A map of `entries` (the last value of a key wins), as `collect::<BTreeMap<_, _>>()` makes it
/// but without its stable sort of the entries (compiled once per key and value type): inserted
/// one at a time.
pub fn btree_map<K: Ord, V>(entries: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    for (k, v) in entries {
        map.insert(k, v);
    }
    map
}

/// The one compiled stable sort: positions by a comparison of the elements at them.
#[inline(never)]
fn sort_positions(order: &mut [usize], compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| compare(a, b));
}

/// Puts the element at position `order[i]` at position `i`, for every `i`, following each cycle
/// of the permutation with swaps; `order` becomes the identity.
fn permute<T>(v: &mut [T], order: &mut [usize]) {
    for start in 0..order.len() {
        let mut at = start;
        while let Some(slot) = order.get_mut(at) {
            let from = core::mem::replace(slot, at);
            if from == at || from == start || from >= v.len() {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_as_the_standard_library() {
        // (key, original position): every permutation of a list with equal keys.
        let keys = [3u8, 1, 3, 0, 1, 2, 3, 0, 0, 2, 1];
        let mut ours: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
        let mut std_sorted = ours.clone();
        sort_by_key(&mut ours, |&(k, _)| k);
        std_sorted.sort_by_key(|&(k, _)| k);
        assert_eq!(ours, std_sorted);
        assert_eq!(
            ours,
            vec![
                (0, 3),
                (0, 7),
                (0, 8),
                (1, 1),
                (1, 4),
                (1, 10),
                (2, 5),
                (2, 9),
                (3, 0),
                (3, 2),
                (3, 6)
            ]
        );
    }

    #[test]
    fn sorts_every_permutation_of_five() {
        let mut v = vec![0u32, 1, 2, 3, 4];
        // Heap's algorithm over all 120 orders.
        fn each(k: usize, v: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
            if k == 1 {
                out.push(v.clone());
                return;
            }
            for i in 0..k {
                each(k - 1, v, out);
                if k.is_multiple_of(2) {
                    v.swap(i, k - 1);
                } else {
                    v.swap(0, k - 1);
                }
            }
        }
        let mut all = Vec::new();
        each(5, &mut v, &mut all);
        assert_eq!(all.len(), 120);
        for mut p in all {
            sort(&mut p);
            assert_eq!(p, vec![0, 1, 2, 3, 4]);
        }
        let mut strings = vec!["b".to_string(), "a".into(), "c".into()];
        sort_by(&mut strings, |a, b| b.cmp(a));
        assert_eq!(strings, ["c", "b", "a"]);
        let map = btree_map([(2, "b"), (1, "a"), (2, "c")]);
        assert_eq!(map.into_iter().collect::<Vec<_>>(), [(1, "a"), (2, "c")]);
        let mut empty: Vec<u8> = Vec::new();
        sort(&mut empty);
        assert!(empty.is_empty());
    }
}
