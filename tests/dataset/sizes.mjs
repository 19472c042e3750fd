// tests/dataset/sizes.mjs OUT: DuckDB writes the datasets of the sizes
// cases (sizes-test.sh):
//
//   OUT/small   a Hive dataset of a few KB: folders k=1/j=x, k=1/j=y,
//               k=2/j=x, two files each, flat columns with NULLs
//               (nothing any `verify` could disagree with)
//   OUT/large   k=1/big.parquet, uncompressed random strings past the
//               4 MiB a stat may decode, and k=2/small.parquet
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const values = join(here, '..', 'values');
const require = createRequire(join(values, 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const { sqlStr } = await import(join(values, 'duckdb-render.mjs'));

const [out] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
await c.run('SET threads = 1');

const rows = (lo, n) => `SELECT i::BIGINT AS id,
  CASE WHEN i % 5 = 0 THEN NULL ELSE 'name ' || i END AS name,
  CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 0.25)::DOUBLE END AS price
  FROM range(${lo}, ${lo + n}) r(i)`;
let lo = 0;
for (const dir of ['k=1/j=x', 'k=1/j=y', 'k=2/j=x']) {
	mkdirSync(join(out, 'small', dir), { recursive: true });
	for (const f of ['a', 'b']) {
		await c.run(`COPY (${rows(lo, 40)}) TO ${sqlStr(join(out, 'small', dir, f + '.parquet'))} (FORMAT parquet)`);
		lo += 40;
	}
}
mkdirSync(join(out, 'large', 'k=1'), { recursive: true });
mkdirSync(join(out, 'large', 'k=2'), { recursive: true });
await c.run(`COPY (SELECT i::BIGINT AS id, md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS name
  FROM range(80000) r(i)) TO ${sqlStr(join(out, 'large', 'k=1', 'big.parquet'))} (FORMAT parquet, COMPRESSION uncompressed)`);
await c.run(`COPY (SELECT i::BIGINT AS id, 'n' || i AS name FROM range(50) r(i))
  TO ${sqlStr(join(out, 'large', 'k=2', 'small.parquet'))} (FORMAT parquet)`);
writeFileSync(join(out, 'done'), '');
