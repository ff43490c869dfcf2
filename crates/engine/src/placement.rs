//! Placement (SPEC §6 step 8): kept entries sorted by order (higher first),
//! ties by priority (higher first), then book index, then id (lower first).

use std::cmp::Ordering;

/// The placement comparison of two kept entries given as
/// `(order, priority, book, id)`.
pub fn compare(a: (i64, i64, usize, u64), b: (i64, i64, usize, u64)) -> Ordering {
    b.0.cmp(&a.0)
        .then(b.1.cmp(&a.1))
        .then(a.2.cmp(&b.2))
        .then(a.3.cmp(&b.3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_order() {
        let mut v = vec![
            (1, 5, 0, 0),
            (9, 0, 0, 1),
            (1, 7, 1, 2),
            (1, 7, 0, 3),
            (1, 7, 0, 1),
        ];
        v.sort_by(|a, b| compare(*a, *b));
        assert_eq!(
            v,
            vec![
                (9, 0, 0, 1),
                (1, 7, 0, 1),
                (1, 7, 0, 3),
                (1, 7, 1, 2),
                (1, 5, 0, 0)
            ]
        );
    }
}
