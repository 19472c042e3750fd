// tests/dataset/expect.mjs DIR OUTDIR: DuckDB's reading of the Hive
// dataset DIR (read_parquet('DIR/**/*.parquet', hive_partitioning =
// true), in file order, rows in file order) as colfs renders it
// (docs/values.md): OUTDIR/<column>.txt (one value a line, NULL as \N)
// and OUTDIR/rows.jsonl.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const values = join(here, '..', 'values');
const require = createRequire(join(values, 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const { jsonExpr, sqlStr, sqlIdent } = await import(join(values, 'duckdb-render.mjs'));

const [dir, outdir] = process.argv.slice(2);
mkdirSync(outdir, { recursive: true });
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
await c.run('SET threads = 1');
const src = `read_parquet(${sqlStr(dir + '/**/*.parquet')}, hive_partitioning = true, filename = true, file_row_number = true)`;
// the rendering kind of each column, from its DuckDB type
const kinds = { BIGINT: 'num', INTEGER: 'num', DOUBLE: 'float', VARCHAR: 'str', DATE: 'quoted', 'BIGINT[]': { list: 'num' },
	'STRUCT(x BIGINT, y VARCHAR)': { struct: [['x', 'num'], ['y', 'str']] },
	'STRUCT(p BIGINT, q BIGINT[])[]': { list: { struct: [['p', 'num'], ['q', { list: 'num' }]] } } };
const desc = (await c.runAndReadAll(`DESCRIBE SELECT * EXCLUDE (filename, file_row_number) FROM ${src}`)).getRowObjectsJson();
const cols = desc.map((r) => [r.column_name, kinds[r.column_type]]);
for (const [name, k] of cols)
	if (!k)
		throw new Error(`no rendering kind for ${name}`);
const order = 'ORDER BY filename, file_row_number';
for (const [name, k] of cols) {
	const x = sqlIdent(name);
	// text: scalars as CAST AS VARCHAR (strings as they are: the test's
	// have no character colfs escapes), nested values as JSON
	const text = typeof k === 'string' && k !== 'float'
		? `CAST(${x} AS VARCHAR)` : k === 'float' ? `CAST(${x} AS VARCHAR)` : jsonExpr(x, k);
	const rows = (await c.runAndReadAll(`SELECT CASE WHEN ${x} IS NULL THEN '\\N' ELSE ${text} END FROM ${src} ${order}`)).getRows();
	writeFileSync(join(outdir, name + '.txt'), rows.map((r) => r[0] + '\n').join(''));
}
const obj = cols.map(([name, k], i) => `${i ? "','" : "'{'"} || ${sqlStr(JSON.stringify(name) + ':')} || ${jsonExpr(sqlIdent(name), k)}`).join(' || ') + " || '}'";
const rows = (await c.runAndReadAll(`SELECT ${obj} FROM ${src} ${order}`)).getRows();
writeFileSync(join(outdir, 'rows.jsonl'), rows.map((r) => r[0] + '\n').join(''));
writeFileSync(join(outdir, 'columns'), cols.map(([n]) => n + '\n').join(''));
