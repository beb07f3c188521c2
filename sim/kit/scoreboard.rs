//! Scoreboards: the three checks of every stream testbench — nothing lost, nothing duplicated,
//! order as specified — with messages that give the item index and values.
//!
//! * [`InOrder`]: items must come out exactly in the order they were expected.
//! * [`ByTag`]: items with the same tag keep their order; different tags may interleave.

use super::error::TbError;
use std::collections::{HashMap, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;

/// In-order scoreboard.
#[derive(Clone, Debug)]
pub struct InOrder<T> {
    expected: VecDeque<T>,
    /// Items matched so far (for duplicate diagnosis).
    matched: Vec<T>,
}

impl<T> Default for InOrder<T> {
    fn default() -> Self {
        InOrder {
            expected: VecDeque::new(),
            matched: Vec::new(),
        }
    }
}

impl<T: PartialEq + Debug> InOrder<T> {
    /// An empty scoreboard.
    pub fn new() -> InOrder<T> {
        InOrder::default()
    }

    /// Adds the next expected item.
    pub fn expect(&mut self, item: T) {
        self.expected.push_back(item);
    }

    /// Checks an observed item against the oldest expected one.
    pub fn observe(&mut self, item: T) -> Result<(), TbError> {
        let index = self.matched.len();
        if self.expected.front() == Some(&item) {
            let front = self.expected.pop_front().expect("front exists");
            self.matched.push(front);
            return Ok(());
        }
        let msg = if let Some(j) = self.expected.iter().position(|e| *e == item) {
            format!(
                "out of order: observed item #{index} is {item:?}, which was expected as item \
                 #{}; item #{index} should have been {:?} (lost or reordered)",
                index + j,
                self.expected[0]
            )
        } else if let Some(j) = self.matched.iter().rposition(|e| *e == item) {
            format!("duplicate: observed item #{index} is {item:?}, a repeat of item #{j}")
        } else if let Some(front) = self.expected.front() {
            format!("mismatch at item #{index}: expected {front:?}, observed {item:?}")
        } else {
            format!("unexpected item #{index}: {item:?} (nothing more was expected)")
        };
        Err(TbError::new(msg))
    }

    /// Items expected and not yet observed.
    pub fn outstanding(&self) -> usize {
        self.expected.len()
    }

    /// Items matched so far.
    pub fn matched(&self) -> usize {
        self.matched.len()
    }

    /// Fails if any expected item was never observed.
    pub fn check_complete(&self) -> Result<(), TbError> {
        match self.expected.front() {
            None => Ok(()),
            Some(first) => Err(TbError::new(format!(
                "lost: {} expected item(s) never observed, the first is item #{}: {first:?}",
                self.expected.len(),
                self.matched.len()
            ))),
        }
    }
}

/// Out-of-order scoreboard keyed by tag: in order within a tag.
#[derive(Clone, Debug)]
pub struct ByTag<K, T> {
    /// Per tag: (global expect index, item).
    expected: HashMap<K, VecDeque<(usize, T)>>,
    count: usize,
    observed: usize,
}

impl<K, T> Default for ByTag<K, T> {
    fn default() -> Self {
        ByTag {
            expected: HashMap::new(),
            count: 0,
            observed: 0,
        }
    }
}

impl<K: Hash + Eq + Debug + Clone, T: PartialEq + Debug> ByTag<K, T> {
    /// An empty scoreboard.
    pub fn new() -> ByTag<K, T> {
        ByTag::default()
    }

    /// Adds an expected item with `tag`.
    pub fn expect(&mut self, tag: K, item: T) {
        self.expected
            .entry(tag)
            .or_default()
            .push_back((self.count, item));
        self.count += 1;
    }

    /// Checks an observed item against the oldest expected item of its tag.
    pub fn observe(&mut self, tag: K, item: T) -> Result<(), TbError> {
        let n = self.observed;
        self.observed += 1;
        let queue = self.expected.get_mut(&tag).filter(|q| !q.is_empty());
        let Some(queue) = queue else {
            return Err(TbError::new(format!(
                "unexpected: observation #{n} has tag {tag:?} ({item:?}) but nothing is \
                 outstanding for that tag (duplicate or wrong tag)"
            )));
        };
        let (index, front) = queue.front().expect("non-empty");
        if *front == item {
            queue.pop_front();
            return Ok(());
        }
        let later = queue.iter().find(|(_, e)| *e == item).map(|(i, _)| *i);
        let msg = match later {
            Some(j) => format!(
                "out of order within tag {tag:?}: observation #{n} is {item:?} (expected item \
                 #{j}) but item #{index} {front:?} comes first"
            ),
            None => format!(
                "mismatch for tag {tag:?} at observation #{n}: expected item #{index} \
                 {front:?}, observed {item:?}"
            ),
        };
        Err(TbError::new(msg))
    }

    /// Items expected and not yet observed.
    pub fn outstanding(&self) -> usize {
        self.expected.values().map(|q| q.len()).sum()
    }

    /// Fails if any expected item was never observed (reports the earliest one).
    pub fn check_complete(&self) -> Result<(), TbError> {
        let first = (self.expected.iter())
            .filter_map(|(k, q)| q.front().map(|(i, t)| (*i, k, t)))
            .min_by_key(|(i, _, _)| *i);
        match first {
            None => Ok(()),
            Some((i, k, t)) => Err(TbError::new(format!(
                "lost: {} expected item(s) never observed, the first is item #{i} (tag {k:?}): \
                 {t:?}",
                self.outstanding()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_reports_loss_duplicates_and_order() {
        let mut s = InOrder::new();
        (0..5).for_each(|i| s.expect(i * 10));
        assert!(s.observe(0).is_ok());
        let e = s.observe(0).unwrap_err().message;
        assert!(
            e.contains("duplicate") && e.contains("#1") && e.contains("item #0"),
            "{e}"
        );
        let e = s.observe(20).unwrap_err().message;
        assert!(
            e.contains("out of order") && e.contains("#2") && e.contains("10"),
            "{e}"
        );
        let e = s.observe(7).unwrap_err().message;
        assert!(
            e.contains("mismatch at item #1: expected 10, observed 7"),
            "{e}"
        );
        assert!(s.observe(10).is_ok());
        let e = s.check_complete().unwrap_err().message;
        assert!(
            e.contains("3 expected item(s)") && e.contains("#2: 20"),
            "{e}"
        );
        (20..50).step_by(10).for_each(|i| s.observe(i).unwrap());
        s.check_complete().unwrap();
        assert!(s
            .observe(99)
            .unwrap_err()
            .message
            .contains("unexpected item #5"));
    }

    #[test]
    fn by_tag_allows_interleaving_only_across_tags() {
        let mut s = ByTag::new();
        s.expect('a', 1);
        s.expect('b', 2);
        s.expect('a', 3);
        assert!(s.observe('b', 2).is_ok());
        let e = s.observe('a', 3).unwrap_err().message;
        assert!(e.contains("out of order within tag 'a'"), "{e}");
        assert!(s.observe('a', 1).is_ok());
        let e = s.check_complete().unwrap_err().message;
        assert!(e.contains("item #2 (tag 'a'): 3"), "{e}");
        assert!(s.observe('a', 3).is_ok());
        assert!(s
            .observe('b', 2)
            .unwrap_err()
            .message
            .contains("unexpected"));
        s.check_complete().unwrap();
    }
}
