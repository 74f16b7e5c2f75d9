//! Replica comparison (`sstable_engine::repair`, what `sstable-inspect diff` runs):
//!
//! | function | returns |
//! |---|---|
//! | `merkle(paths, depth, now, gc_grace)` | dict of columns: one replica's Merkle tree leaves (`MerkleTree`), with `depth` and `estimated_partitions` |
//! | `diff(replicas, depth, now, gc_grace, range)` | dict: the `diff --json` report of the replicas |
//! | `validation_depth(replicas)` | int: the depth `diff` chooses (`ValidationManager`: from the largest replica's estimate) |
//!
//! A replica is a list of paths (one table's SSTables, as `find` finds them), opened by
//! `sstable_native::repair::open_replica`. Validation runs without the GIL.

use pyo3::prelude::*;
use sstable_engine::clock::NoClock;
use sstable_engine::repair::{depth_for, diff_replicas, ValidationOptions, MAX_DEPTH};
use sstable_native::repair::{open_replica, Replica};

use crate::{error, from_json};

/// "Now", seconds since the epoch: `now` or the system clock.
fn now_or_clock(now: Option<i64>) -> Option<i64> {
    now.or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .and_then(|d| i64::try_from(d.as_secs()).ok())
    })
}

fn open(paths: &[String], now: i64) -> Result<Replica, String> {
    let args: Vec<&str> = paths.iter().map(String::as_str).collect();
    open_replica(&args, now)
}

fn options(now: i64, gc_grace: i64, depth: u8, range: Option<(i64, i64)>) -> ValidationOptions {
    ValidationOptions {
        now_seconds: now,
        gc_before_seconds: now.saturating_sub(gc_grace),
        depth,
        range,
    }
}

/// `merkle(paths, depth=None, now=None, gc_grace=864000)`: one replica validated; its tree's
/// 2^depth leaves as columns `start_token`, `end_token` (int64, the range (start, end]; the
/// last leaf ends at the minimum token, the wrap), `digest` (hex), `partitions`, `bytes`.
#[pyfunction]
#[pyo3(signature = (paths, depth=None, now=None, gc_grace=864_000))]
pub fn merkle(
    py: Python<'_>,
    paths: Vec<String>,
    depth: Option<u8>,
    now: Option<i64>,
    gc_grace: i64,
) -> PyResult<Py<PyAny>> {
    let now =
        now_or_clock(now).ok_or_else(|| error(py, "no clock: give now".into(), None, None))?;
    let json = py.detach(|| -> Result<String, String> {
        let replica = open(&paths, now)?;
        let estimate = replica.estimated_partitions;
        let depth = depth.unwrap_or_else(|| depth_for(estimate, MAX_DEPTH));
        let mut validator = replica.validator(options(now, gc_grace, depth, None));
        while validator
            .next_partition(&NoClock)
            .map_err(|e| e.to_string())?
            .is_some()
        {}
        let tree = &validator.tree;
        let leaves = tree.leaves();
        let ranges: Vec<(i64, i64)> = (0..leaves.len()).map(|i| tree.range_of(i)).collect();
        let hex = |h: &[u8]| h.iter().map(|b| format!("{b:02x}")).collect::<String>();
        let columns = serde_json::json!({
            "depth": tree.depth(),
            "estimated_partitions": estimate,
            "now": now,
            "start_token": ranges.iter().map(|r| r.0).collect::<Vec<_>>(),
            "end_token": ranges.iter().map(|r| r.1).collect::<Vec<_>>(),
            "digest": leaves.iter().map(|l| hex(&l.hash)).collect::<Vec<_>>(),
            "partitions": leaves.iter().map(|l| l.partitions).collect::<Vec<_>>(),
            "bytes": leaves.iter().map(|l| l.bytes).collect::<Vec<_>>(),
        });
        Ok(columns.to_string())
    });
    let json = json.map_err(|e| error(py, e, None, None))?;
    from_json(py, &json)
}

/// `diff(replicas, depth=None, now=None, gc_grace=864000, range=None)`: the replicas (each a
/// list of paths) validated in lockstep and compared: the `diff --json` report.
#[pyfunction]
#[pyo3(signature = (replicas, depth=None, now=None, gc_grace=864_000, range=None))]
pub fn diff(
    py: Python<'_>,
    replicas: Vec<Vec<String>>,
    depth: Option<u8>,
    now: Option<i64>,
    gc_grace: i64,
    range: Option<(i64, i64)>,
) -> PyResult<Py<PyAny>> {
    if replicas.len() < 2 {
        return Err(error(
            py,
            "diff needs two or more replicas".into(),
            None,
            None,
        ));
    }
    let now =
        now_or_clock(now).ok_or_else(|| error(py, "no clock: give now".into(), None, None))?;
    let json = py.detach(|| -> Result<String, String> {
        let opened = replicas
            .iter()
            .map(|paths| open(paths, now))
            .collect::<Result<Vec<_>, _>>()?;
        let estimate = opened.iter().map(|r| r.estimated_partitions).max();
        let depth = depth.unwrap_or_else(|| depth_for(estimate.unwrap_or(0), MAX_DEPTH));
        let validation = options(now, gc_grace, depth, range);
        let validators = opened
            .into_iter()
            .map(|r| r.validator(validation))
            .collect();
        let report = diff_replicas(validators, &NoClock).map_err(|(i, e)| {
            let name = replicas.get(i).map(|p| p.join(", ")).unwrap_or_default();
            format!("replica {name}: {e}")
        })?;
        serde_json::to_string(&report).map_err(|e| e.to_string())
    });
    let json = json.map_err(|e| error(py, e, None, None))?;
    from_json(py, &json)
}

/// `validation_depth(replicas)`: the depth `diff` chooses for these replicas (metadata only).
#[pyfunction]
pub fn validation_depth(py: Python<'_>, replicas: Vec<Vec<String>>) -> PyResult<u8> {
    let estimate = py.detach(|| -> Result<u64, String> {
        let mut max = 0;
        for paths in &replicas {
            max = max.max(open(paths, 0)?.estimated_partitions);
        }
        Ok(max)
    });
    let estimate = estimate.map_err(|e| error(py, e, None, None))?;
    Ok(depth_for(estimate, MAX_DEPTH))
}

/// Adds this module's functions to `_native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(merkle, m)?)?;
    m.add_function(wrap_pyfunction!(diff, m)?)?;
    m.add_function(wrap_pyfunction!(validation_depth, m)?)?;
    Ok(())
}
