// tests/values/gen-matrix.mjs: the DuckDB oracle for Parquet values.
//
//   node gen-matrix.mjs OUTDIR [--quick]     write the matrix
//   node gen-matrix.mjs OUTDIR --check       check a written matrix
//
// Writes one table covering every DuckDB type (with NULLs and edge values)
// as Parquet files, one per combination of compression x parquet_version x
// dictionary on/off:
//
//   OUTDIR/<name>.parquet
//   OUTDIR/<name>.expected/<column>   one line per row: the value as
//                                     docs/values.md renders it, computed
//                                     from DuckDB's reading of that file
//   OUTDIR/manifest.tsv               name, rows, columns, compression,
//                                     version, dictionary
//
// --check reads every file back with DuckDB and verifies the row count,
// that every expected file has exactly one line per row, and that every
// combination renders the same (the same table went into each).  Exit status: 0
// good, 1 a failure, 77 when @duckdb/node-api cannot be loaded.

import fs from 'node:fs';
import path from 'node:path';
import { renderFloat32 } from './float32.mjs';
import { sqlStr, textExpr, escapeText } from './duckdb-render.mjs';

let DuckDBInstance;
try {
	({ DuckDBInstance } = await import('@duckdb/node-api'));
} catch (e) {
	console.error('gen-matrix: @duckdb/node-api is not installed ' +
		'(run tests/values/duckdb-setup.sh): ' + e.message);
	process.exit(77);
}

const ROWS = 1000;
const ROW_GROUP_SIZE = 300;
const COMPRESSIONS = ['uncompressed', 'snappy', 'gzip', 'zstd', 'brotli',
	'lz4_raw'];
const VERSIONS = ['v1', 'v2'];
const DICTIONARY = [true, false];

// ---- the table ------------------------------------------------------------
//
// Each column: name, SQL type, SQL expression over `i` (0..ROWS-1) and the
// rendering kind of its value tree:
//   num     rendered by CAST(x AS VARCHAR) (ints, decimals, bool)
//   float   num, but nan/inf/-inf become JSON strings inside nested values
//   f32     FLOAT at the top level: rendered by float32.mjs from the value
//           DuckDB reads (DuckDB's own text is not always the shortest)
//   str     text with escapes; a JSON string inside nested values
//   blob    DuckDB's BLOB text (\xHH); a JSON string of that text
//   quoted  CAST(x AS VARCHAR); a JSON string of that text (dates, times,
//           timestamps, uuid, interval)
//   {list: k}, {struct: [[name, k]...]}, {map: [kk, vk]}

// A value from a list of specials for the first rows, then from `rand`;
// NULL on every 7th row after them (shifted per column).
let colIndex = 0;
function col(name, type, specials, rand, kind) {
	const k = colIndex++;
	const sp = specials.length ?
		`WHEN i < ${specials.length} THEN ([${specials.map((s) => `(${s})::${type}`).join(', ')}])[i + 1]` : '';
	const expr = `CASE ${sp} WHEN (i + ${k}) % 7 = 3 THEN NULL ` +
		`ELSE ${rand} END::${type}`;
	return { name, type, expr, kind };
}

// hash(i, salt) as a UBIGINT
const h = (salt) => `hash(i * 7919 + ${salt})`;
const sign = (salt) => `(CASE WHEN ${h(salt)} % 2 = 0 THEN -1 ELSE 1 END)`;

function decimalCol(name, p, s) {
	const ip = p - s;
	// integer part of up to ip digits, in pieces of at most 14 digits
	let intPart = '';
	for (let left = ip, n = 0; left > 0; n++) {
		const d = Math.min(left, 14);
		intPart += (intPart ? ' || ' : '') +
			`lpad((${h(10 + n)} % ${10 ** d})::VARCHAR, ${d}, '0')`;
		left -= d;
	}
	if (!intPart)
		intPart = `'0'`;
	const frac = s ? ` || '.' || lpad((${h(20)} % ${10 ** Math.min(s, 14)})::VARCHAR, ${Math.min(s, 14)}, '0')` +
		(s > 14 ? ` || repeat('7', ${s - 14})` : '') : '';
	const t = `DECIMAL(${p},${s})`;
	const max = '9'.repeat(ip) + (s ? '.' + '9'.repeat(s) : '');
	return col(name, t, [`'${max}'::${t}`, `'-${max}'::${t}`, `0::${t}`,
		`'-0.${'0'.repeat(Math.max(s - 1, 0))}1'::${t}`.replace('-0.1', '-1')],
	`CAST((CASE WHEN ${h(30)} % 2 = 0 THEN '-' ELSE '' END) || ${intPart}${frac} AS ${t})`,
	'num');
}

const strSpecials = [`''`, `'a'`, `'tab' || chr(9) || 'here'`,
	`'nl' || chr(10) || 'x'`, `'cr' || chr(13) || 'x'`, `'back\\slash'`,
	`'quote"d'`, `'é ünïcödé ✓'`, `'😀 emoji'`, `chr(1) || 'x' || chr(127)`,
	`'comma,sep;semi'`, `repeat('long', 100)`, `'\\N'`, `' lead space'`];

const columns = [
	col('c_bool', 'BOOLEAN', ['true', 'false'], `${h(1)} % 3 = 0`, 'num'),
	col('c_tinyint', 'TINYINT', ['-128', '127', '0', '-1'],
		`(${h(2)} % 256)::INT - 128`, 'num'),
	col('c_smallint', 'SMALLINT', ['-32768', '32767', '0'],
		`(${h(3)} % 65536)::INT - 32768`, 'num'),
	col('c_integer', 'INTEGER', ['-2147483648', '2147483647', '0'],
		`(${h(4)} % 4294967296)::BIGINT - 2147483648`, 'num'),
	col('c_bigint', 'BIGINT', ['-9223372036854775808', '9223372036854775807', '0'],
		`(${h(5)} % 18446744073709551615)::HUGEINT - 9223372036854775807`, 'num'),
	col('c_utinyint', 'UTINYINT', ['0', '255'], `${h(6)} % 256`, 'num'),
	col('c_usmallint', 'USMALLINT', ['0', '65535'], `${h(7)} % 65536`, 'num'),
	col('c_uinteger', 'UINTEGER', ['0', '4294967295'], `${h(8)} % 4294967296`, 'num'),
	col('c_ubigint', 'UBIGINT', ['0', '18446744073709551615'], `${h(9)}`, 'num'),
	decimalCol('c_dec4', 4, 2),
	decimalCol('c_dec9', 9, 3),
	decimalCol('c_dec18', 18, 6),
	decimalCol('c_dec38', 38, 10),
	col('c_float', 'FLOAT', [`0`, `'-0.0'::FLOAT`, `'nan'`, `'inf'`, `'-inf'`,
		`'1e-45'`, `'3.4028235e38'`, `'0.1'`, `'1e21'`, `'16777216'`,
		`'1e-5'`, `'0.0001'`],
	`${sign(11)} * (${h(12)} % 2000000)::FLOAT / 977.0 * pow(10, (${h(13)} % 20)::INT - 10)`,
	'f32'),
	col('c_double', 'DOUBLE', [`0`, `'-0.0'::DOUBLE`, `'nan'`, `'inf'`, `'-inf'`,
		`'5e-324'`, `'1.7976931348623157e308'`, `'0.1'`, `'1e21'`, `'1e16'`,
		`'1e15'`, `'123456789.123'`, `'1e-5'`, `'0.0001'`, `'100'`],
	`${sign(14)} * (${h(15)}::DOUBLE) / 3.7 * pow(10, (${h(16)} % 60)::INT - 40)`,
	'float'),
	col('c_varchar', 'VARCHAR', strSpecials,
		`'v' || (${h(17)} % 50)::VARCHAR`, 'str'),
	col('c_blob', 'BLOB', [`''::BLOB`, `unhex('00FF')`, `unhex('5C27220A')`,
		`'plain'::BLOB`], `unhex(md5(i::VARCHAR))`, 'blob'),
	col('c_date', 'DATE', [`DATE '1970-01-01'`, `DATE '0001-01-01'`,
		`DATE '9999-12-31'`, `DATE '-0044-03-15'`, `DATE '2024-02-29'`,
		`DATE '1969-12-31'`],
	`DATE '1900-01-01' + (${h(18)} % 73000)::INT`, 'quoted'),
	col('c_time', 'TIME', [`TIME '00:00:00'`, `TIME '23:59:59.999999'`,
		`TIME '12:34:56.5'`],
	`TIME '00:00:00' + to_microseconds((${h(19)} % 86400000000)::BIGINT)`,
	'quoted'),
	col('c_timetz', 'TIMETZ', [`TIMETZ '12:34:56+05:30'`, `TIMETZ '00:00:00+00'`],
		`(TIME '00:00:00' + to_microseconds((${h(20)} % 86400000000)::BIGINT))::TIMETZ`,
		'quoted'),
	col('c_ts', 'TIMESTAMP', [`TIMESTAMP '1970-01-01 00:00:00'`,
		`TIMESTAMP '1969-12-31 23:59:59.999999'`,
		`TIMESTAMP '0001-01-01 00:00:00'`, `TIMESTAMP '9999-12-31 23:59:59.999999'`],
	`make_timestamp((${h(21)} % 4000000000000000)::BIGINT - 1000000000000000)`,
	'quoted'),
	col('c_ts_s', 'TIMESTAMP_S', [`TIMESTAMP_S '1970-01-01 00:00:01'`],
		`make_timestamp((${h(22)} % 4000000000000000)::BIGINT)::TIMESTAMP_S`,
		'quoted'),
	col('c_ts_ms', 'TIMESTAMP_MS', [`TIMESTAMP_MS '2021-01-01 00:00:01.5'`],
		`make_timestamp((${h(23)} % 4000000000000000)::BIGINT)::TIMESTAMP_MS`,
		'quoted'),
	col('c_ts_ns', 'TIMESTAMP_NS', [`TIMESTAMP_NS '2021-01-01 12:34:56.123456789'`,
		`TIMESTAMP_NS '1677-09-22 00:00:00'`],
	`make_timestamp_ns((${h(24)} % 9000000000000000000)::BIGINT - 4000000000000000000)`,
	'quoted'),
	col('c_tstz', 'TIMESTAMPTZ', [`TIMESTAMPTZ '2021-01-01 12:34:56.5+00'`],
		`make_timestamp((${h(25)} % 4000000000000000)::BIGINT)::TIMESTAMPTZ`,
		'quoted'),
	col('c_uuid', 'UUID', [`UUID '00000000-0000-0000-0000-000000000000'`,
		`UUID 'ffffffff-ffff-ffff-ffff-ffffffffffff'`],
	`md5(i::VARCHAR)::UUID`, 'quoted'),
	col('c_interval', 'INTERVAL', [`INTERVAL 0 second`,
		`INTERVAL '1 year 2 months 3 days 04:05:06.007'`, `INTERVAL 100 hour`,
		`INTERVAL 1 month`, `INTERVAL 1 day`],
	`to_months((${h(26)} % 100)::INT) + to_days((${h(27)} % 40)::INT) + to_milliseconds((${h(28)} % 90000000)::BIGINT)`,
	'quoted'),
	col('c_enum', 'mood', [], `(['sad', 'ok', 'happy'])[1 + (${h(29)} % 3)::INT]`,
		'str'),
	col('c_list', 'INTEGER[]', [`[]::INTEGER[]`, `[NULL]::INTEGER[]`],
		`list_transform(range((${h(31)} % 5)::BIGINT), lambda x: CASE WHEN x = 2 THEN NULL ELSE (x * ${h(32)} % 1000)::INTEGER END)`,
		{ list: 'num' }),
	col('c_list_str', 'VARCHAR[]', [`['a"b', NULL, 'tab' || chr(9)]`],
		`list_transform(range((${h(33)} % 4)::BIGINT), lambda x: 's' || x::VARCHAR)`,
		{ list: 'str' }),
	col('c_struct', 'STRUCT(a INTEGER, b VARCHAR, d DOUBLE, m DECIMAL(9,3), t TIMESTAMP, bl BLOB)',
		[`{'a': NULL, 'b': NULL, 'd': 'nan', 'm': NULL, 't': NULL, 'bl': NULL}`,
			`{'a': 1, 'b': 'x"y', 'd': 1e21, 'm': -1.5, 't': TIMESTAMP '2021-01-01 00:00:00.5', 'bl': unhex('00')}`],
		`{'a': (${h(34)} % 100)::INTEGER, 'b': 'b' || (${h(35)} % 10)::VARCHAR, 'd': (${h(36)} % 1000)::DOUBLE / 8, 'm': ((${h(37)} % 100000)::DECIMAL(9,0) / 1000)::DECIMAL(9,3), 't': make_timestamp((${h(38)} % 4000000000000000)::BIGINT), 'bl': unhex('41')}`,
		{ struct: [['a', 'num'], ['b', 'str'], ['d', 'float'], ['m', 'num'], ['t', 'quoted'], ['bl', 'blob']] }),
	col('c_map', 'MAP(VARCHAR, INTEGER)', [`MAP {}::MAP(VARCHAR, INTEGER)`,
		`MAP {'k"1': NULL, 'k2': 2}`],
	`map_from_entries(list_transform(range((${h(39)} % 3)::BIGINT), lambda x: {'k': 'key' || x::VARCHAR, 'v': (x * 10)::INTEGER}))`,
	{ map: ['str', 'num'] }),
	col('c_list_struct', 'STRUCT(x INTEGER, ys VARCHAR[])[]',
		[`[{'x': NULL, 'ys': NULL}, NULL, {'x': 1, 'ys': []}]`],
		`list_transform(range((${h(40)} % 3)::BIGINT), lambda k: {'x': k::INTEGER, 'ys': list_transform(range(k), lambda j: 'y' || j::VARCHAR)})`,
		{ list: { struct: [['x', 'num'], ['ys', { list: 'str' }]] } }),
];

// ---- expected renderings ---------------------------------------------------

async function expected(con, file, outdir) {
	fs.mkdirSync(outdir, { recursive: true });
	const list = columns.map((c) => `${textExpr(c.name, c.kind)} AS ${c.name}`);
	const r = await con.runAndReadAll(
		`SELECT ${list.join(', ')} FROM read_parquet(${sqlStr(file)}) ` +
		`ORDER BY file_row_number`);
	const rows = r.getRows();
	columns.forEach((c, ci) => {
		const lines = rows.map((row) => {
			const v = row[ci];
			if (v === null)
				return '\\N';
			if (c.kind === 'f32')
				return renderFloat32(v);
			return c.kind === 'str' ? escapeText(v) : v;
		});
		fs.writeFileSync(path.join(outdir, c.name),
			lines.join('\n') + (lines.length ? '\n' : ''));
	});
	return rows.length;
}

// ---- main -----------------------------------------------------------------

const args = process.argv.slice(2);
const outdir = args.find((a) => !a.startsWith('--'));
if (!outdir) {
	console.error('usage: node gen-matrix.mjs OUTDIR [--quick|--check]');
	process.exit(2);
}
const quick = args.includes('--quick');
const check = args.includes('--check');

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run(`SET TimeZone = 'UTC'`);

if (check) {
	const manifest = fs.readFileSync(path.join(outdir, 'manifest.tsv'), 'utf8')
		.split('\n').filter((l) => l && !l.startsWith('#'));
	let bad = 0;
	const first = {};
	for (const line of manifest) {
		const [name, rows, cols] = line.split('\t');
		const file = path.join(outdir, name + '.parquet');
		const r = await con.runAndReadAll(
			`SELECT count(*)::BIGINT FROM read_parquet(${sqlStr(file)})`);
		const n = Number(r.getRows()[0][0]);
		if (n !== Number(rows)) {
			console.error(`${name}: DuckDB reads ${n} rows, manifest says ${rows}`);
			bad++;
		}
		for (const c of cols.split(',')) {
			const f = path.join(outdir, name + '.expected', c);
			const text = fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null;
			const lines = text === null ? -1 : text.split('\n').length - 1;
			if (lines !== n) {
				console.error(`${name}: ${c}: ${lines} lines, ${n} rows`);
				bad++;
			}
			// the same table in every combination reads back the same
			if (!(c in first))
				first[c] = { name, text };
			else if (first[c].text !== text) {
				console.error(`${name}: ${c} differs from ${first[c].name}`);
				bad++;
			}
		}
	}
	console.log(`checked ${manifest.length} files, ${bad} problems`);
	process.exit(bad ? 1 : 0);
}

fs.mkdirSync(outdir, { recursive: true });
await con.run(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`);
await con.run(`CREATE TABLE t AS SELECT ${columns.map((c) => `${c.expr} AS ${c.name}`).join(',\n')} ` +
	`FROM (SELECT range AS i FROM range(${ROWS})) ORDER BY i`);

const manifest = ['#name\trows\tcolumns\tcompression\tversion\tdictionary'];
for (const comp of quick ? ['snappy'] : COMPRESSIONS) {
	for (const ver of VERSIONS) {
		for (const dict of DICTIONARY) {
			const name = `duckdb_${comp}_${ver}_${dict ? 'dict' : 'plain'}`;
			const file = path.join(outdir, name + '.parquet');
			await con.run(`COPY t TO ${sqlStr(file)} (FORMAT parquet, ` +
				`COMPRESSION ${comp}, PARQUET_VERSION ${ver}, ` +
				`ROW_GROUP_SIZE ${ROW_GROUP_SIZE}` +
				(dict ? '' : ', DICTIONARY_SIZE_LIMIT 0') + ')');
			const n = await expected(con, file,
				path.join(outdir, name + '.expected'));
			manifest.push([name, n, columns.map((c) => c.name).join(','),
				comp, ver, dict ? 'dict' : 'plain'].join('\t'));
		}
	}
}
fs.writeFileSync(path.join(outdir, 'manifest.tsv'), manifest.join('\n') + '\n');
console.log(`wrote ${manifest.length - 1} files to ${outdir}`);
