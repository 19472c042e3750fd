// tests/parquet/gen-nested-nulls.mjs OUT: DuckDB writes OUT/nested.parquet,
// NULLs at every level of nested columns (lists of structs with NULL
// elements, NULL fields, NULL and empty lists; a struct of a struct in a
// list; a list inside a struct inside a list; maps with NULL values and
// NULL struct values; lists of lists), and prints each chunk's
// path_in_schema and statistics null_count as DuckDB reads them back.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'values', 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const out = process.argv[2];
const f = join(out, 'nested.parquet').replaceAll("'", "''");
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
await c.run('SET threads = 1');
await c.run(`COPY (SELECT i::BIGINT AS id,
  CASE i % 5 WHEN 0 THEN [] WHEN 1 THEN NULL
    ELSE [{'p': CASE WHEN i % 3 = 0 THEN NULL ELSE i::INTEGER END,
           'q': CASE WHEN i % 2 = 0 THEN NULL ELSE 's' || i END,
           'r': [i, NULL]}, NULL, {'p': 1, 'q': 'x', 'r': NULL}] END AS ls,
  [CASE WHEN i % 3 = 0 THEN NULL
    ELSE {'s': CASE WHEN i % 2 = 0 THEN NULL
      ELSE {'v': CASE WHEN i % 5 = 0 THEN NULL ELSE i END} END} END] AS lss,
  MAP {'k' || i: CASE WHEN i % 2 = 0 THEN NULL ELSE {'v': i} END,
       'z': NULL} AS ms,
  MAP {'a': CASE WHEN i % 3 = 0 THEN NULL ELSE i END} AS mi,
  CASE WHEN i % 4 = 0 THEN NULL
    ELSE [[{'p': CASE WHEN i % 3 = 0 THEN NULL ELSE i END}, NULL], NULL, []] END AS ll,
  {'l': CASE WHEN i % 6 = 0 THEN NULL ELSE [{'p': i}, NULL] END} AS sl
  FROM range(300) r(i)) TO '${f}' (FORMAT parquet, ROW_GROUP_SIZE 100)`);
const r = await c.runAndReadAll(`SELECT row_group_id, path_in_schema, stats_null_count
  FROM parquet_metadata('${f}') ORDER BY ALL`);
for (const [g, p, n] of r.getRows())
	console.log(`${g}\t${p}\t${n}`);
