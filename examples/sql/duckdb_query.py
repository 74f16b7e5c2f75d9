"""Ask a table's SSTables a question in SQL with DuckDB: `sstable_inspect.table` hands DuckDB the
rows of the merged read of the table (what `sstable-inspect read` returns) as an Arrow C stream
(decoded as DuckDB pulls them; nothing is written to disk).

    python examples/sql/duckdb_query.py DIR "SELECT partition_key, count(*) FROM t GROUP BY 1"
"""

import sys

import duckdb

import sstable_inspect as si


def main():
    directory, query = sys.argv[1], sys.argv[2]
    con = duckdb.connect()
    con.register("t", si.table([directory]))
    print(con.sql(query))


if __name__ == "__main__":
    main()
