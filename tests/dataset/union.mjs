// tests/dataset/union.mjs OUT WHICH: DuckDB writes a dataset of
// union-test.sh and reads it as the oracle.
//
//   long     OUT/long/p.parquet: a column whose name is 300 bytes, one
//            of 40 bytes; OUT/long.names: the names, one a line
//   keycol   OUT/keycol: Hive folders year=2023 and year=2024 whose files
//            have a `year` column of their own (2023 and 2024 in
//            year=2024, 1999 in year=2023); OUT/keycol.jsonl: DuckDB's
//            read_parquet(..., hive_partitioning = true) of it, as JSON
//            lines; OUT/keycol.types: each column's name and type
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const values = join(here, '..', 'values');
const require = createRequire(join(values, 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const { sqlStr } = await import(join(values, 'duckdb-render.mjs'));

const [out, which] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
await c.run('SET threads = 1');

if (which === 'long') {
	const long = 'L' + 'o'.repeat(290) + 'ng name', short = 's'.repeat(40);
	mkdirSync(join(out, 'long'), { recursive: true });
	await c.run(`COPY (SELECT i::BIGINT AS "${long}", 'v' || i AS "${short}"
	  FROM range(3) r(i)) TO ${sqlStr(join(out, 'long', 'p.parquet'))} (FORMAT parquet)`);
	writeFileSync(join(out, 'long.names'), `${long}\n${short}\n`);
}

if (which === 'keycol') {
	const d = join(out, 'keycol');
	mkdirSync(join(d, 'year=2023'), { recursive: true });
	mkdirSync(join(d, 'year=2024'), { recursive: true });
	await c.run(`COPY (SELECT i::INTEGER AS id, 1999::INTEGER AS year, 'a' || i AS s
	  FROM range(2) r(i)) TO ${sqlStr(join(d, 'year=2023', 'f.parquet'))} (FORMAT parquet)`);
	await c.run(`COPY (SELECT (10 + i)::INTEGER AS id, 2024::INTEGER AS year, 'b' || i AS s
	  FROM range(3) r(i)) TO ${sqlStr(join(d, 'year=2024', 'f.parquet'))} (FORMAT parquet)`);
	const src = `read_parquet(${sqlStr(d + '/*/*.parquet')}, hive_partitioning = true)`;
	await c.run(`COPY (SELECT * FROM ${src} ORDER BY id) TO ${sqlStr(join(out, 'keycol.jsonl'))} (FORMAT json)`);
	const desc = (await c.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRowObjectsJson();
	writeFileSync(join(out, 'keycol.types'), desc.map((r) => `${r.column_name} ${r.column_type}\n`).join(''));
}
