"""Apache Cassandra SSTables as Python dicts and pyarrow tables.

    >>> import sstable_inspect as si
    >>> si.info("path/to/nb-1-big-Data.db")["version"]
    >>> si.verify("path/to/table_dir")["verdict"]
    >>> si.partitions("path/to/table_dir").to_pandas()
    >>> for batch in si.scan("path/to/table_dir"): ...
    >>> [s["components"]["Data.db"] for s in si.find(["path/to/data_dir"])]
    >>> si.scrub("path/to/table_dir", "out_dir", "skip")["problems"]
    >>> si.merkle("node1/ks/t").to_pandas()
    >>> si.diff(["node1/ks/t", "node2/ks/t"])["mismatching_ranges"]

``path`` is one SSTable: a directory holding one, or any of its component files. Rows and
reports cross from Rust through the Arrow C stream interface (no copy); decoding runs without
the GIL. Failures raise :class:`SSTableError`, whose ``component`` (e.g. ``"Data.db"``) and
``offset`` say where.
"""

import pyarrow as _pa

from . import _native
from ._native import SSTableError

__all__ = [
    "info",
    "verify",
    "partitions",
    "scan",
    "find",
    "scrub",
    "table",
    "merkle",
    "diff",
    "validation_depth",
    "MERKLE_SCHEMA",
    "PARTITIONS_SCHEMA",
    "SSTableError",
]

#: The schema of :func:`partitions`' table: ``key``, ``key_hex``, ``token`` (strings), then the
#: counts (unsigned 64-bit integers).
PARTITIONS_SCHEMA = _pa.schema(_native.partitions_schema())


def info(path):
    """The metadata report of one SSTable (``sstable-inspect info --json``), as a dict."""
    return _native.info(str(path))


def verify(path):
    """Every checksum of one SSTable (``sstable-inspect verify --json``), as a dict with the
    ``verdict`` (``valid``, ``invalid``, ``not_verifiable``)."""
    return _native.verify(str(path))


def partitions(path, batch_rows=8192, jobs=None):
    """The partitions report (``sstablepartitions``) as a ``pyarrow.Table``: one row per
    partition with key, token, position, bytes, rows, cells, tombstones by kind, TTL cells.
    ``jobs``: Rust threads the scan is split over (default: the cores; the table is the same
    for any number, batch for batch)."""
    return _pa.RecordBatchReader.from_stream(
        _native.partitions(str(path), batch_rows, jobs)
    ).read_all()


def scan(path, columns=None, batch_rows=8192, cell_metadata=False, jobs=None):
    """The rows of one 3.0+ SSTable as a ``pyarrow.RecordBatchReader`` (batches of
    ``batch_rows``), decoded as they are read. ``columns``: keep only these columns (by name).
    ``cell_metadata``: add ``<col>__writetime``, ``__ttl``, ``__local_deletion_time``.
    ``jobs``: Rust threads the scan is split over (default: the cores), partition-aligned ranges
    decoded ahead (at most ``2 * jobs``) without the GIL; the batches are the same for any
    number."""
    reader = _pa.RecordBatchReader.from_stream(
        _native.scan(str(path), batch_rows, cell_metadata, jobs)
    )
    if columns is None:
        return reader
    columns = list(columns)
    missing = [c for c in columns if c not in reader.schema.names]
    if missing:
        raise KeyError(f"no such columns: {missing}")
    schema = _pa.schema([reader.schema.field(c) for c in columns])

    def batches():
        for b in reader:
            yield b.select(columns)

    return _pa.RecordBatchReader.from_batches(schema, batches())


def table(paths):
    """The rows of the merged read of one table's 3.0+ SSTables under ``paths`` (each
    partition's versions reconciled at now, as ``sstable-inspect read`` shows them) as one
    ``pyarrow.RecordBatchReader`` (with ``<col>__writetime``, ``__ttl``,
    ``__local_deletion_time``), decoded as it is read: DuckDB (``con.register("t", reader)``) and DataFusion-python
    query it directly through the Arrow C stream."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    return _pa.RecordBatchReader.from_stream(_native.table([str(p) for p in paths]))


def find(paths):
    """Every SSTable under ``paths`` (directories searched recursively; a component file selects
    its whole SSTable), as ``sstable-inspect`` finds them: a list (by directory, then name) of dicts with
    ``prefix`` (directory and file-name prefix, e.g. ``.../nb-1-big``) and ``components`` (file
    suffix, e.g. ``"Data.db"``, to path)."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    found = _native.find([str(p) for p in paths])
    return [{"prefix": prefix, "components": dict(files)} for prefix, files in found]


def scrub(path, out, mode="skip", version="nb", schema=None):
    """Scrubs one SSTable into the directory ``out`` (``sstable-inspect scrub --json``): the
    partitions that decode, in order, written as a new ``nb`` or ``oa`` SSTable. ``mode``:
    ``skip`` drops problem partitions, ``segregate`` writes out-of-order ones to further
    SSTables, ``validate`` only reports, ``abort`` stops at the first problem. Returns the
    report as a dict: ``problems`` (key, token, kind, reason, start/end, rows_kept),
    ``partitions_kept``, ``outputs`` and ``files`` (the paths written per output). ``schema``:
    the table's ``CREATE TABLE`` statement, which a 2.x (``jb``, ``ka``, ``la``) SSTable needs
    to be rewritten."""
    return _native.scrub(str(path), str(out), mode, version, schema)


#: The schema of :func:`merkle`'s table: one row per leaf, the token range ``(start_token,
#: end_token]`` as int64 (Murmur3 tokens; the last leaf ends at the minimum token, the wrap),
#: the leaf's ``digest`` (hex, the XOR of its partitions' 256-bit validator digests; zeros when
#: empty), its ``partitions`` and ``bytes`` (the digests' input bytes, what a repair would
#: stream for the range).
MERKLE_SCHEMA = _pa.schema(
    [
        ("start_token", _pa.int64()),
        ("end_token", _pa.int64()),
        ("digest", _pa.string()),
        ("partitions", _pa.int64()),
        ("bytes", _pa.int64()),
    ]
)

#: Cassandra's default gc_grace_seconds (10 days), as ``sstable-inspect diff``'s.
GC_GRACE_SECONDS = 864_000


def _paths(paths):
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    return [str(p) for p in paths]


def merkle(paths, depth=None, now=None, gc_grace=None):
    """One replica's Merkle tree as Cassandra's validation computes it (``sstable-inspect
    diff``'s per replica): the SSTables of one table under ``paths`` merged, purged at
    ``now - gc_grace``, each partition's validator digest XORed into the leaf of its token. A
    ``pyarrow.Table`` of :data:`MERKLE_SCHEMA`, all ``2**depth`` leaves in token order; the
    schema metadata holds ``depth``, ``estimated_partitions`` and ``now``. ``depth``: default
    ``ceil(log2(estimated partitions))``, at most 20 — give the same depth to every replica
    compared (:func:`validation_depth`). ``now``: seconds since the epoch (default: the clock);
    ``gc_grace``: seconds (default 864000)."""
    gc = GC_GRACE_SECONDS if gc_grace is None else gc_grace
    t = _native.merkle(_paths(paths), depth, now, gc)
    meta = {k: str(t[k]) for k in ("depth", "estimated_partitions", "now")}
    arrays = [_pa.array(t[f.name], f.type) for f in MERKLE_SCHEMA]
    return _pa.Table.from_arrays(arrays, schema=MERKLE_SCHEMA.with_metadata(meta))


def diff(replica_paths, depth=None, now=None, gc_grace=None, range=None):
    """Two or more replicas of one table compared (``sstable-inspect diff --json``): each
    item of ``replica_paths`` is one replica (a path or a list of paths). A dict with
    ``depth``, ``replicas``, ``partitions`` and ``roots`` per replica,
    ``mismatching_ranges`` (``start_token``, ``end_token``, per-replica ``partitions`` and
    ``bytes``) and ``partition_diffs`` (``token``, ``key_hex``, per-replica ``digests`` — None
    where missing — and ``max_timestamps_micros``, ``newest``: the replica index). ``range``:
    ``(start, end)``, only tokens in (start, end]."""
    gc = GC_GRACE_SECONDS if gc_grace is None else gc_grace
    replicas = [_paths(r) for r in replica_paths]
    return _native.diff(replicas, depth, now, gc, None if range is None else tuple(range))


def validation_depth(replica_paths):
    """The Merkle tree depth :func:`diff` chooses for these replicas (``ValidationManager``:
    ``ceil(log2)`` of the largest replica's estimated partitions, at most 20), read from their
    metadata."""
    return _native.validation_depth([_paths(r) for r in replica_paths])
