//! The token budget (SPEC §6 step 7).
//!
//! Constants are always kept and count first. The others go by priority
//! (higher first; ties: higher order, lower book index, lower id) and are
//! kept while they fit; from the first one that does not fit, it and every
//! entry after it are dropped, so the lowest priorities always fall first.

/// An activated entry competing for the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    pub book: usize,
    pub id: u64,
    pub priority: i64,
    pub order: i64,
    pub tokens: u32,
    pub constant: bool,
}

/// The budget's verdict for one candidate, by its index in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Kept,
    /// Needed `needed` tokens with `left` remaining.
    Cut {
        needed: u32,
        left: u32,
    },
}

/// The outcome of [`apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// One verdict per candidate, same order as the input.
    pub verdicts: Vec<Verdict>,
    pub used: u32,
    pub constants: u32,
    pub over_by_constants: bool,
    /// Index (in the input) of the first candidate the cut dropped: where the
    /// budget bar draws its cut line.
    pub first_cut: Option<usize>,
}

/// Applies `limit` to `candidates`.
pub fn apply(candidates: &[Candidate], limit: u32) -> Outcome {
    let mut verdicts = vec![Verdict::Kept; candidates.len()];
    let constants: u64 = candidates
        .iter()
        .filter(|c| c.constant)
        .map(|c| c.tokens as u64)
        .sum();
    let constants = constants.min(u32::MAX as u64) as u32;
    let over_by_constants = constants > limit;
    let mut used = constants;
    let mut rest: Vec<usize> = (0..candidates.len())
        .filter(|&i| !candidates[i].constant)
        .collect();
    rest.sort_by(|&a, &b| {
        let (x, y) = (&candidates[a], &candidates[b]);
        y.priority
            .cmp(&x.priority)
            .then(y.order.cmp(&x.order))
            .then(x.book.cmp(&y.book))
            .then(x.id.cmp(&y.id))
    });
    let mut first_cut = None;
    for i in rest {
        let left = limit.saturating_sub(used);
        let needed = candidates[i].tokens;
        if first_cut.is_none() && !over_by_constants && needed <= left {
            used += needed;
        } else {
            first_cut.get_or_insert(i);
            verdicts[i] = Verdict::Cut { needed, left };
        }
    }
    Outcome {
        verdicts,
        used,
        constants,
        over_by_constants,
        first_cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: u64, priority: i64, tokens: u32, constant: bool) -> Candidate {
        Candidate {
            book: 0,
            id,
            priority,
            order: 100,
            tokens,
            constant,
        }
    }

    fn kept(o: &Outcome) -> Vec<usize> {
        (0..o.verdicts.len())
            .filter(|&i| o.verdicts[i] == Verdict::Kept)
            .collect()
    }

    #[test]
    fn higher_priority_is_kept_first_and_the_cut_is_strict() {
        // 60 + 30 fit in 100; the 20 after the cut is dropped even though it
        // would fit: the lowest priorities always fall first.
        let o = apply(
            &[
                c(0, 1, 20, false),
                c(1, 9, 60, false),
                c(2, 5, 50, false),
                c(3, 7, 30, false),
            ],
            100,
        );
        assert_eq!(kept(&o), vec![1, 3]);
        assert_eq!(
            o.verdicts[2],
            Verdict::Cut {
                needed: 50,
                left: 10
            }
        );
        assert_eq!(
            o.verdicts[0],
            Verdict::Cut {
                needed: 20,
                left: 10
            }
        );
        assert_eq!(o.used, 90);
    }

    #[test]
    fn constants_count_first() {
        let o = apply(&[c(0, 100, 50, false), c(1, 0, 60, true)], 100);
        assert_eq!(kept(&o), vec![1]);
        assert_eq!((o.used, o.constants, o.over_by_constants), (60, 60, false));
    }

    #[test]
    fn constants_alone_over_budget_keep_nothing_else() {
        let o = apply(&[c(0, 100, 1, false), c(1, 0, 150, true)], 100);
        assert_eq!(kept(&o), vec![1]);
        assert!(o.over_by_constants);
        assert_eq!(o.verdicts[0], Verdict::Cut { needed: 1, left: 0 });
    }

    #[test]
    fn ties_break_by_order_then_book_then_id() {
        let mut a = c(5, 1, 60, false);
        a.order = 200;
        let b = c(1, 1, 60, false);
        assert_eq!(kept(&apply(&[b, a], 100)), vec![1], "higher order wins");
        let mut x = c(1, 1, 60, false);
        x.book = 1;
        let y = c(9, 1, 60, false);
        assert_eq!(kept(&apply(&[x, y], 100)), vec![1], "lower book wins");
        assert_eq!(
            kept(&apply(&[c(9, 1, 60, false), c(2, 1, 60, false)], 100)),
            vec![1],
            "lower id wins"
        );
    }

    #[test]
    fn exact_fit_is_kept() {
        assert_eq!(kept(&apply(&[c(0, 1, 100, false)], 100)), vec![0]);
    }
}
