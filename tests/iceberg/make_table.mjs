// tests/iceberg/make_table.mjs: DuckDB (@duckdb/node-api) for
// make_table.py: runs its statements (COPY ... TO a Parquet file, with
// field ids) and its queries, and writes what the queries return.
//
//   node make_table.mjs JOB.json OUT.json
//
// JOB.json: {"run": [SQL, ...], "query": {NAME: SQL, ...}}.  OUT.json:
// {NAME: [[value, ...], ...]}, every value as DuckDB's text
// (CAST(... AS VARCHAR)), NULL as null.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'values', 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const [jobFile, outFile] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobFile, 'utf8'));
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
for (const sql of job.run || [])
  await con.run(sql);
const out = {};
for (const [name, sql] of Object.entries(job.query || {})) {
  const r = await con.runAndReadAll(sql);
  out[name] = r.getRows().map((row) => row.map((v) => (v === null ? null : String(v))));
}
writeFileSync(outFile, JSON.stringify(out));
