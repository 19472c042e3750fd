// tests/iceberg/deletes-fixtures.mjs: the files of the Iceberg deletes
// test (test_ice_deletes.c) and the rows each case must give, both from
// DuckDB (@duckdb/node-api), never from colfs.
//
//   node deletes-fixtures.mjs OUTDIR
//
// Writes OUTDIR/*.parquet (data files and delete files, with Iceberg's
// field ids: the data columns 1 id, 2 name, 3 cat; a position delete
// file's file_path 2147483546 and pos 2147483545), OUTDIR/dv.json (the
// rows the deletion vectors of the test delete, picked by DuckDB; the
// Puffin files are written from it by deletes-fixtures.py) and
// OUTDIR/expected.json: for each case, the 0-based rows of its data file
// the deletes remove, found by an anti-join of the data file (its
// file_row_number) with the delete files.  Whether a delete file applies
// at all (sequence numbers, partitions, the deletion vector rule) is the
// case's own statement of the Iceberg spec's scan planning; what it
// removes when it applies is DuckDB's.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'values', 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const out = process.argv[2];
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => s.replace(/'/g, "''");
const f = (name) => `'${q(path.join(out, name))}'`;

// the file paths the manifests would give (file_path), not where the
// test reads them: position deletes name data files by these; data_b's
// holds a tab and a backslash, which colfs's text escapes
export const P = {
  a: 's3://warehouse/db/t/data/cat=a/data_a.parquet',
  b: 's3://warehouse/db/t/data/cat=b/tab\there\\b.parquet',
  old: 's3://warehouse/db/t/data/cat=a/data_old.parquet',
  noid: 's3://warehouse/db/t/data/cat=a/data_noid.parquet',
  big: 's3://warehouse/db/t/data/big.parquet',
};

async function run(sql) {
  await con.run(sql);
}
async function rows(sql) {
  const r = await con.runAndReadAll(sql);
  return r.getRows().map((row) => Number(row[0]));
}

const ids = "FIELD_IDS {id: 1, name: 2, cat: 3}";
await run(`COPY (SELECT i::INTEGER AS id,
    CASE WHEN i % 4 = 3 THEN NULL ELSE 'n' || (i % 5) END AS name,
    'a' AS cat FROM range(12) t(i) ORDER BY i)
  TO ${f('data_a.parquet')} (FORMAT parquet, ${ids})`);
await run(`COPY (SELECT * FROM (VALUES (100, 'n0', 'b'), (1, 'n1', 'b'),
    (2, NULL, 'b'), (101, 'x', 'b'), (5, 'n0', 'b'), (102, NULL, 'b'),
    (9, 'n4', 'b'), (103, 'n2', 'b')) v(id, name, cat))
  TO ${f('data_b.parquet')} (FORMAT parquet, ${ids})`);
// written before the name field was added: no name column
await run(`COPY (SELECT i::INTEGER AS id, 'a' AS cat FROM range(6) t(i))
  TO ${f('data_old.parquet')} (FORMAT parquet, FIELD_IDS {id: 1, cat: 3})`);
// written without field ids: found by name
await run(`COPY (SELECT i::INTEGER AS id, 'n' || (i % 5) AS name
    FROM range(10) t(i))
  TO ${f('data_noid.parquet')} (FORMAT parquet)`);
await run(`COPY (SELECT i::BIGINT AS id FROM range(200000) t(i))
  TO ${f('big.parquet')} (FORMAT parquet, FIELD_IDS {id: 1})`);

const posIds = "FIELD_IDS {file_path: 2147483546, pos: 2147483545}";
await run(`COPY (SELECT * FROM (VALUES ('${q(P.a)}', 1::BIGINT),
    ('${q(P.a)}', 3), ('${q(P.a)}', 7), ('${q(P.a)}', 11),
    ('${q(P.b)}', 0), ('${q(P.b)}', 5),
    ('s3://warehouse/db/t/data/other.parquet', 2)) v(file_path, pos)
    ORDER BY file_path, pos)
  TO ${f('pos_1.parquet')} (FORMAT parquet, ${posIds})`);
await run(`COPY (SELECT * FROM (VALUES ('${q(P.a)}', 0::BIGINT),
    ('${q(P.a)}', 3)) v(file_path, pos))
  TO ${f('pos_2.parquet')} (FORMAT parquet, ${posIds})`);
// damaged: a NULL position in its second row
await run(`COPY (SELECT * FROM (VALUES ('${q(P.a)}', 1::BIGINT),
    ('${q(P.a)}', NULL)) v(file_path, pos))
  TO ${f('pos_null.parquet')} (FORMAT parquet, ${posIds})`);
await run(`COPY (SELECT * FROM (VALUES (2), (5), (9), (101), (999)) v(id))
  TO ${f('eq_id.parquet')} (FORMAT parquet, FIELD_IDS {id: 1})`);
await run(`COPY (SELECT * FROM (VALUES (0, 'n0'), (3, NULL), (4, 'zz'),
    (7, NULL), (1, 'n1'), (2, NULL)) v(id, name))
  TO ${f('eq_id_name.parquet')} (FORMAT parquet, FIELD_IDS {id: 1, name: 2})`);
await run(`COPY (SELECT * FROM (VALUES ('n2'), (NULL)) v(name))
  TO ${f('eq_name.parquet')} (FORMAT parquet, FIELD_IDS {name: 2})`);

// the rows of data file `d` (path `p`) position delete files `dels` remove
const pos = (d, p, dels) => rows(`SELECT file_row_number
  FROM read_parquet(${f(d)}, file_row_number = true) x
  WHERE file_row_number IN (SELECT pos FROM read_parquet([${dels.map(f).join(', ')}])
                            WHERE file_path = '${q(p)}')
  ORDER BY 1`);
// the rows of data file `d` whose columns `cols` equal a row of `del`
// (NULL equal to NULL); a column the data file lacks reads as NULL, or
// as the SQL value `fill` gives it
const eq = (d, del, cols, lacking = [], fill = {}) => rows(`SELECT file_row_number
  FROM (SELECT *, ${lacking.map((c) => `${fill[c] || 'NULL'} AS ${c}`).concat(['0 AS _z']).join(', ')}
        FROM read_parquet(${f(d)}, file_row_number = true)) x
  WHERE EXISTS (SELECT 1 FROM read_parquet(${f(del)}) y
                WHERE ${cols.map((c) => `x.${c} IS NOT DISTINCT FROM y.${c}`).join(' AND ')})
  ORDER BY 1`);
const union = (...lists) => [...new Set(lists.flat())].sort((x, y) => x - y);

// the deletion vectors' rows, picked by DuckDB from the data files
const dv = {
  big: await rows(`SELECT file_row_number FROM read_parquet(${f('big.parquet')},
    file_row_number = true) WHERE id % 7 = 3 OR id < 5 OR id BETWEEN 70000 AND 140000 ORDER BY 1`),
  a: await rows(`SELECT file_row_number FROM read_parquet(${f('data_a.parquet')},
    file_row_number = true) WHERE id IN (0, 6, 10) ORDER BY 1`),
  b: await rows(`SELECT file_row_number FROM read_parquet(${f('data_b.parquet')},
    file_row_number = true) WHERE id >= 100 ORDER BY 1`),
};
writeFileSync(path.join(out, 'dv.json'), JSON.stringify({ paths: P, rows: dv }));

const expected = {
  pos_same_seq: await pos('data_a.parquet', P.a, ['pos_1.parquet', 'pos_2.parquet']),
  pos_lower_seq: [],
  pos_partition_a: await pos('data_a.parquet', P.a, ['pos_1.parquet']),
  pos_partition_b_other: [],
  pos_partition_b: await pos('data_b.parquet', P.b, ['pos_1.parquet']),
  pos_other_spec: [],
  pos_referenced: await pos('data_a.parquet', P.a, ['pos_1.parquet']),
  pos_referenced_other: [],
  eq_one_greater: await eq('data_a.parquet', 'eq_id.parquet', ['id']),
  eq_one_equal: [],
  eq_two_nulls: await eq('data_a.parquet', 'eq_id_name.parquet', ['id', 'name']),
  eq_two_lacking: await eq('data_old.parquet', 'eq_id_name.parquet', ['id', 'name'], ['name']),
  eq_two_lacking_fill: await eq('data_old.parquet', 'eq_id_name.parquet', ['id', 'name'], ['name'],
                                { name: "'n1'" }),
  eq_other_partition: [],
  eq_same_partition: await eq('data_b.parquet', 'eq_id.parquet', ['id']),
  eq_global: await eq('data_a.parquet', 'eq_id.parquet', ['id']),
  eq_null_only: await eq('data_a.parquet', 'eq_name.parquet', ['name']),
  eq_no_field_ids: await eq('data_noid.parquet', 'eq_id.parquet', ['id']),
  mixed: union(await eq('data_a.parquet', 'eq_id.parquet', ['id']),
               await eq('data_a.parquet', 'eq_name.parquet', ['name']),
               await pos('data_a.parquet', P.a, ['pos_1.parquet'])),
  dv_big: dv.big,
  dv_big_lz4: dv.big,
  dv_big_lz4_nosize: dv.big,
  dv_big_zstd: dv.big,
  dv_replaces_pos: dv.a,
  dv_second_blob: dv.b,
  dv_lower_seq: [],
  // Avro delete files of the same rows as Parquet ones (deletes-fixtures.py)
  pos_avro: await pos('data_a.parquet', P.a, ['pos_2.parquet']),
  eq_avro: await eq('data_a.parquet', 'eq_id_name.parquet', ['id', 'name']),
  // ORC delete files (tests/orc/orc_gen, deletes.sh): row i of their
  // first column holds i; pos_orc.orc's string column holds P.a
  pos_orc: await rows(`SELECT file_row_number FROM read_parquet(${f('data_a.parquet')},
    file_row_number = true) WHERE file_row_number IN (SELECT range FROM range(3)) ORDER BY 1`),
  eq_orc_id: await rows(`SELECT file_row_number FROM read_parquet(${f('data_a.parquet')},
    file_row_number = true) WHERE id IN (SELECT range FROM range(4)) ORDER BY 1`),
  eq_orc_name: await rows(`SELECT file_row_number FROM read_parquet(${f('data_a.parquet')},
    file_row_number = true) WHERE id IN (SELECT range FROM range(3)) ORDER BY 1`),
  // eq_orc_id.orc as a data file (its row i holds id i) against eq_id.parquet
  eq_orc_data: await rows(`SELECT range FROM range(4)
    WHERE range IN (SELECT id FROM read_parquet(${f('eq_id.parquet')})) ORDER BY 1`),
};
writeFileSync(path.join(out, 'expected.json'), JSON.stringify(expected));
