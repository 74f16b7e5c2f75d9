//! What every step of one partition's merge shares: the schema, "now", the losses being
//! recorded, and the deletions over the data (with their SSTables).

use super::output::{Beaten, Loss, SourceId, TombstoneKind};
use super::reconcile::deletion_supersedes;
use crate::component::data::{DataSchema, DeletionTime};

/// A deletion over data, and the SSTable it came from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shadow {
    pub time: DeletionTime,
    pub source: SourceId,
    pub kind: TombstoneKind,
}

/// What a partition merge needs besides its inputs.
pub(crate) struct Context<'s> {
    pub schema: &'s DataSchema,
    pub now_seconds: Option<i64>,
    pub explain: bool,
    pub losses: Vec<Loss>,
    pub counter_merges: u64,
}

impl<'s> Context<'s> {
    pub fn new(schema: &'s DataSchema, now_seconds: Option<i64>, explain: bool) -> Self {
        Context {
            schema,
            now_seconds,
            explain,
            losses: Vec::new(),
            counter_merges: 0,
        }
    }

    pub fn lose(&mut self, loss: Loss) {
        if self.explain {
            self.losses.push(loss);
        }
    }

    /// [`Context::lose`] with the loss built only when the merge explains (a loss names its
    /// clustering and column: allocations a merge that does not explain never makes).
    pub fn lose_with(&mut self, loss: impl FnOnce(&Context<'s>) -> Loss) {
        if self.explain {
            let l = loss(self);
            self.losses.push(l);
        }
    }
}

pub(crate) fn beaten_by_shadow(s: &Shadow) -> Beaten {
    Beaten::Tombstone {
        kind: s.kind,
        source: s.source,
        marked_for_delete_at_micros: s.time.marked_for_delete_at_micros,
    }
}

/// A deletion and the SSTable it came from.
pub(crate) type Sourced = (SourceId, DeletionTime);

/// The superseding deletion of `candidates` (first one kept on ties), ignoring those that
/// delete nothing; the others are returned as losers.
pub(crate) fn best_deletion(
    candidates: Vec<(SourceId, DeletionTime)>,
) -> (Option<Sourced>, Vec<Sourced>) {
    let mut best: Option<(SourceId, DeletionTime)> = None;
    let mut losers = Vec::new();
    for (s, d) in candidates.into_iter().filter(|(_, d)| !d.deletes_nothing()) {
        match best.take() {
            Some(b) if !deletion_supersedes(&d, &b.1) => {
                losers.push((s, d));
                best = Some(b);
            }
            Some(b) => {
                losers.push(b);
                best = Some((s, d));
            }
            None => best = Some((s, d)),
        }
    }
    (best, losers)
}
