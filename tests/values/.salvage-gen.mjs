import { DuckDBInstance } from '@duckdb/node-api';
const [out] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`COPY (SELECT i AS id,
  CASE WHEN i % 7 = 3 THEN NULL ELSE 'name' || (i % 13) END AS name,
  i * 0.5 AS price, i % 2 = 0 AS flag, DATE '2020-01-01' + (i % 400)::INT AS day,
  CASE WHEN i % 5 = 0 THEN NULL ELSE [i % 3, i % 4] END AS xs,
  (i * 7) % 1000 AS small
  FROM range(0, 12000) t(i)) TO '${out}'
  (FORMAT PARQUET, COMPRESSION zstd, ROW_GROUP_SIZE 3000)`);
