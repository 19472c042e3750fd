// tests/dataset/oracle.mjs OUT WHICH: DuckDB writes one dataset of the
// dataset tests (WHICH: hive, drift or damaged).
//
//   OUT/hive      Hive folders a/b/d (BIGINT, VARCHAR with NULL and values
//                 needing %-escapes, DATE), two files per partition; a
//                 list, a struct and a list of structs among the fields
//   OUT/drift     two files: a field missing in one, a field whose type
//                 changes
//   OUT/damaged   three files (the test damages the middle one)
//   OUT/big       three files of id and s; the middle one's s a page of
//                 over 200 KB (refused under -o max_alloc=64K)
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const values = join(here, '..', 'values');
const require = createRequire(join(values, 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const { jsonExpr, sqlStr } = await import(join(values, 'duckdb-render.mjs'));

const [out, which] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
await c.run('SET threads = 1');

if (which === 'hive') {
await c.run(`CREATE TABLE t AS SELECT i::BIGINT AS id, 'name' || i AS name,
  (i * 0.5)::DOUBLE AS price,
  CASE WHEN i % 7 = 0 THEN NULL ELSE [i, i + 1] END AS tags,
  CASE WHEN i % 5 = 0 THEN NULL ELSE {'x': i, 'y': CASE WHEN i % 3 = 0 THEN NULL ELSE 's' || i END} END AS st,
  CASE WHEN i % 4 = 0 THEN [] ELSE [{'p': i, 'q': [i, NULL]}, NULL] END AS ls,
  (i % 3)::INTEGER AS a,
  CASE i % 4 WHEN 0 THEN 'x y' WHEN 1 THEN 'a/b=c' WHEN 2 THEN NULL ELSE 'plain' END AS b,
  (DATE '2024-01-01' + (i % 2)::INTEGER) AS d
  FROM range(300) r(i)`);
// two files per partition: each half to its own folder, joined by the
// shell (COPY ... PARTITION_BY cannot append without random names)
const hive = join(out, 'hive');
await c.run(`COPY (SELECT * FROM t WHERE id < 150) TO ${sqlStr(hive)} (FORMAT parquet, PARTITION_BY (a, b, d), ROW_GROUP_SIZE 20, FILENAME_PATTERN 'f1_{i}')`);
await c.run(`COPY (SELECT * FROM t WHERE id >= 150) TO ${sqlStr(join(out, 'hive2'))} (FORMAT parquet, PARTITION_BY (a, b, d), ROW_GROUP_SIZE 20, FILENAME_PATTERN 'f2_{i}')`);
}
if (which === 'drift') {
mkdirSync(join(out, 'drift'), { recursive: true });
await c.run(`COPY (SELECT i::BIGINT AS id, 'n' || i AS name FROM range(5) r(i)) TO ${sqlStr(join(out, 'drift', 'p1.parquet'))} (FORMAT parquet)`);
await c.run(`COPY (SELECT i::INTEGER AS id, i * 1.5 AS extra FROM range(3) r(i)) TO ${sqlStr(join(out, 'drift', 'p2.parquet'))} (FORMAT parquet)`);
}
if (which === 'damaged') {
mkdirSync(join(out, 'damaged'), { recursive: true });
for (const [f, lo] of [['d1', 0], ['d2', 100], ['d3', 200]])
	await c.run(`COPY (SELECT i::BIGINT AS id FROM range(${lo}, ${lo + 10}) r(i)) TO ${sqlStr(join(out, 'damaged', f + '.parquet'))} (FORMAT parquet)`);
}
if (which === 'damaged') {
mkdirSync(join(out, 'big'), { recursive: true });
for (const [f, lo, n] of [['u1', 0, 1], ['u2', 100, 20000], ['u3', 200, 1]])
	await c.run(`COPY (SELECT i::BIGINT AS id, repeat('x', ${n}) || i AS s FROM range(${lo}, ${lo + 10}) r(i)) TO ${sqlStr(join(out, 'big', f + '.parquet'))} (FORMAT parquet, COMPRESSION uncompressed)`);
}
writeFileSync(join(out, 'done'), '');
