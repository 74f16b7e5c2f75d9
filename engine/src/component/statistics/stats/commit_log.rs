//! Commit-log bounds in STATS: `CommitLogPosition` (segment id, position) and the
//! `IntervalSet<CommitLogPosition>` of the intervals the sstable covers (mc+).
//!
//! Src: `db/commitlog/CommitLogPosition.java`, `db/commitlog/IntervalSet.java`.

use serde::Serialize;

use crate::component::common::count::read_int_count;
use crate::component::statistics::leaf;
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};

/// `CommitLogPosition` (2.x: `ReplayPosition`): segment id and position in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitLogPosition {
    pub span: Span,
    pub segment_id: i64,
    pub position: i32,
}

impl CommitLogPosition {
    pub fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<CommitLogPosition> {
        let start = r.offset();
        let segment_id = r.i64(what)?;
        let position = r.i32(what)?;
        Ok(CommitLogPosition {
            span: r.span_from(start),
            segment_id,
            position,
        })
    }

    /// `CommitLogPosition.NONE` = (−1, 0).
    pub fn is_none(&self) -> bool {
        self.segment_id == -1 && self.position == 0
    }

    pub(super) fn display(&self) -> String {
        if self.is_none() {
            "NONE (-1, 0)".to_owned()
        } else {
            format!("segment {}, position {}", self.segment_id, self.position)
        }
    }

    pub(in crate::component::statistics) fn to_node(&self, label: &str) -> Node {
        leaf(label, self.display(), self.span)
    }
}

/// One commit-log interval covered by the sstable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitLogInterval {
    pub start: CommitLogPosition,
    pub end: CommitLogPosition,
}

/// The `IntervalSet<CommitLogPosition>` (mc+).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitLogIntervals {
    pub span: Span,
    pub count: Spanned<u32>,
    pub intervals: Vec<CommitLogInterval>,
}

pub(super) fn decode_intervals(r: &mut Reader<'_>) -> Result<CommitLogIntervals> {
    let start = r.offset();
    let count = read_int_count(r, "STATS: commit log interval count", "interval count")?;
    let n = r.check_count(u64::from(count.value), 24, "STATS: commit log intervals")?;
    let mut intervals = Vec::with_capacity(n);
    for _ in 0..n {
        let s = CommitLogPosition::decode(r, "STATS: commit log interval start")?;
        let e = CommitLogPosition::decode(r, "STATS: commit log interval end")?;
        intervals.push(CommitLogInterval { start: s, end: e });
    }
    Ok(CommitLogIntervals {
        span: r.span_from(start),
        count,
        intervals,
    })
}
