// tests/parquet/corpus-vs-duckdb.mjs: every readable Parquet file of the
// corpus, column by column, against DuckDB's reading of it.
//
//   node corpus-vs-duckdb.mjs CORPUS_DIR COLFS_TOOL KNOWN_TSV [MAX_BYTES]
//
// For each file of kind `parquet` in CORPUS_DIR/MANIFEST.tsv (at most
// MAX_BYTES, default 50 MB): DuckDB reads it (a file it cannot read is
// reported and left out); each top-level column is rendered by DuckDB as
// docs/values.md says (tests/values/duckdb-render.mjs) and compared line
// by line with `COLFS_TOOL cat FILE columns/<escaped name>`.
//
// Lines that differ in text are compared semantically where docs/values.md
// documents a difference in form: floats as numbers (as a float for
// FLOAT; DuckDB's `-nan` is colfs's `nan`), a DECIMAL whose precision
// equals its scale (DuckDB `.5`, colfs `0.5`), INT96 timestamps (DuckDB
// keeps microseconds only: colfs's fraction cut to six digits), and nested
// values as parsed JSON with those rules applied to their leaves (integer
// tokens compared as text).  GEOMETRY columns are compared as DuckDB's
// geometry::VARCHAR (WKT) against colfs's text (docs/values.md,
// "Geometries").  VARIANT values
// (at the top or nested) are compared as DuckDB's JSON of the variant
// (CAST(v AS JSON)) parsed against colfs's, with the rules above and one
// more (docs/values.md, VARIANT): a timestamp with time zone in
// nanoseconds keeps nine digits in colfs, DuckDB holds microseconds
// (truncated toward zero); the VARIANT columns compared and equal are
// counted.  After a file DuckDB cannot read, DuckDB is opened afresh (an
// internal error of DuckDB invalidates its database).  A column colfs
// refuses that it serves with
// `-o checksums=ignore` (a bad page CRC, which DuckDB does not verify) is
// compared as served that way, and reported.  Any other difference fails,
// unless KNOWN_TSV lists the file and column (tab-separated: file path
// relative to CORPUS_DIR, column, reason); those are reported as "known
// difference".  Exit 0 good, 1 failures, 77 when @duckdb/node-api cannot
// be loaded.

import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { renderFloat32 } from '../values/float32.mjs';
import { sqlStr, sqlIdent, textExpr, escapeText } from
	'../values/duckdb-render.mjs';

let DuckDBInstance;
try {
	const req = createRequire(new URL('../values/package.json',
		import.meta.url));
	({ DuckDBInstance } = await import(
		pathToFileURL(req.resolve('@duckdb/node-api')).href));
} catch (e) {
	console.error('corpus-vs-duckdb: @duckdb/node-api is not installed ' +
		'(run tests/values/duckdb-setup.sh): ' + e.message);
	process.exit(77);
}

const [corpus, tool, knownFile, maxArg] = process.argv.slice(2);
if (!corpus || !tool || !knownFile) {
	console.error('usage: node corpus-vs-duckdb.mjs CORPUS_DIR COLFS_TOOL ' +
		'KNOWN_TSV [MAX_BYTES]');
	process.exit(2);
}
const maxBytes = maxArg ? Number(maxArg) : 50 * 1000 * 1000;

// ---- known differences -----------------------------------------------------

const known = new Map();
for (const line of fs.readFileSync(knownFile, 'utf8').split('\n')) {
	if (!line || line.startsWith('#'))
		continue;
	const [file, column, reason] = line.split('\t');
	known.set(file + '\t' + column, reason || '(no reason given)');
}
const knownSeen = new Set();

// ---- DuckDB types to rendering kinds ----------------------------------------

// Type ids of @duckdb/node-api (DuckDBTypeId).
const T = {
	BOOLEAN: 1, TINYINT: 2, SMALLINT: 3, INTEGER: 4, BIGINT: 5,
	UTINYINT: 6, USMALLINT: 7, UINTEGER: 8, UBIGINT: 9, FLOAT: 10,
	DOUBLE: 11, TIMESTAMP: 12, DATE: 13, TIME: 14, INTERVAL: 15,
	HUGEINT: 16, VARCHAR: 17, BLOB: 18, DECIMAL: 19, TIMESTAMP_S: 20,
	TIMESTAMP_MS: 21, TIMESTAMP_NS: 22, ENUM: 23, LIST: 24, STRUCT: 25,
	MAP: 26, UUID: 27, TIME_TZ: 30, TIMESTAMP_TZ: 31, UHUGEINT: 32,
	ARRAY: 33, GEOMETRY: 40, VARIANT: 41,
};
const NUM = [T.BOOLEAN, T.TINYINT, T.SMALLINT, T.INTEGER, T.BIGINT,
	T.UTINYINT, T.USMALLINT, T.UINTEGER, T.UBIGINT, T.HUGEINT, T.UHUGEINT,
	T.DECIMAL];
const QUOTED = [T.TIMESTAMP, T.DATE, T.TIME, T.INTERVAL, T.TIMESTAMP_S,
	T.TIMESTAMP_MS, T.TIMESTAMP_NS, T.UUID, T.TIME_TZ, T.TIMESTAMP_TZ];

// The rendering kind of a DuckDB type (columnTypesJson form), or throws
// naming the type that has no docs/values.md rendering to compare with.
function kindOf(t, top) {
	const id = t.typeId;
	if (NUM.includes(id))
		return 'num';
	if (id === T.FLOAT)
		return top ? 'f32' : 'float';
	if (id === T.DOUBLE)
		return 'float';
	if (id === T.VARCHAR || id === T.ENUM)
		return 'str';
	if (id === T.BLOB)
		return 'blob';
	if (QUOTED.includes(id))
		return 'quoted';
	if (id === T.LIST || id === T.ARRAY)
		return { list: kindOf(t.valueType, false) };
	if (id === T.STRUCT)
		return { struct: t.entryNames.map((n, i) =>
			[n, kindOf(t.entryTypes[i], false)]) };
	if (id === T.MAP)
		return { map: [kindOf(t.keyType, false),
			kindOf(t.valueType, false)] };
	if (id === T.VARIANT)
		return 'variant';
	throw new Error(`DuckDB type id ${id} has no docs/values.md rendering`);
}

// ---- colfs names (docs/tree.md "Names") -------------------------------------

function escapeName(raw) {
	if (raw === '')
		return '%00';
	if (raw === '.')
		return '%2E';
	if (raw === '..')
		return '%2E%2E';
	const out = raw.replace(/[%/\x01-\x1f\x7f]/g, (c) => '%' +
		c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
	if (Buffer.byteLength(out) > 200)
		return null;	// hashed names: not computed here
	return out;
}

// ---- semantic comparison ----------------------------------------------------

const INT96_FRACTION = /^(.* \d\d:\d\d:\d\d)(?:\.(\d+))?$/;

// An INT96 timestamp of colfs (nanoseconds) as DuckDB shows it (micros).
// (Years DuckDB cannot hold wrap in DuckDB; they are not excused here:
// such a column must be listed in the known differences.)
function toMicros(s) {
	const m = INT96_FRACTION.exec(s);
	if (!m || !m[2] || m[2].length <= 6)
		return s;
	const f = m[2].slice(0, 6).replace(/0+$/, '');
	return f ? `${m[1]}.${f}` : m[1];
}

// Equal numbers; as floats too when f32 (DuckDB prints some FLOATs with
// the digits of the double).
function numEq(a, b, f32) {
	const x = Number(a), y = Number(b);
	if (Number.isNaN(x) || Number.isNaN(y))
		return false;
	return x === y || (f32 && Math.fround(x) === Math.fround(y));
}

const SPECIAL = { nan: NaN, inf: Infinity, '-inf': -Infinity };
function floatTextEq(a, b, f32) {
	// DuckDB prints a NaN with the sign bit as -nan; colfs any NaN as nan
	if (a === 'nan' && b === '-nan')
		return true;
	if (a in SPECIAL || b in SPECIAL)
		return a === b;
	return /^-?[0-9.e+-]+$/.test(a) && numEq(a, b, f32);
}

// DuckDB writes DECIMAL(p,p) as `.5` / `-.05`; docs/values.md writes 0.5.
const decimalLead = (s) => s.replace(/^(-?)\./, '$10.');

// A timestamp text (`YYYY-MM-DD HH:MM:SS[.f]+00`, years 1..) as BigInt
// nanoseconds since the epoch, or null.
const TS_TZ = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?\+00$/;
function tsNanos(s) {
	const m = TS_TZ.exec(s);
	if (!m)
		return null;
	const d = new Date(0);
	d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
	const days = BigInt(Math.round(d.getTime() / 86400000));
	const secs = days * 86400n + BigInt(Number(m[4]) * 3600 +
		Number(m[5]) * 60 + Number(m[6]));
	return secs * 1000000000n + BigInt((m[7] || '').padEnd(9, '0'));
}

// A variant's timestamp with time zone in nanoseconds (colfs, nine
// digits) against DuckDB's microseconds: equal when the nanoseconds cut
// toward zero to DuckDB's microseconds.
function nanosTzEq(a, b) {
	const x = tsNanos(a), y = tsNanos(b);
	return x !== null && y !== null && x / 1000n * 1000n === y;
}

function jsonEq(a, b, col) {
	if (a === b)
		return true;
	if (typeof a === 'number' && typeof b === 'number')
		return numEq(a, b, true);
	if (typeof a === 'string' && typeof b === 'string')
		return (col.int96 && toMicros(a) === b) ||
			(col.variant && nanosTzEq(a, b));
	if (!a || !b || typeof a !== 'object' || typeof b !== 'object')
		return false;
	if (Array.isArray(a) !== Array.isArray(b))
		return false;
	const ka = Object.keys(a), kb = Object.keys(b);
	if (ka.length !== kb.length)
		return false;
	return ka.every((k, i) => k === kb[i] && jsonEq(a[k], b[k], col));
}

// True when a rendering kind holds a VARIANT.
function hasVariant(k) {
	if (k === 'variant')
		return true;
	if (!k || typeof k !== 'object')
		return false;
	if (k.list !== undefined)
		return hasVariant(k.list);
	if (k.struct !== undefined)
		return k.struct.some(([, fk]) => hasVariant(fk));
	return k.map.some(hasVariant);
}

// The integer number tokens of a JSON text (strings left out), joined.
const intTokens = (s) => (s.replace(/"(?:[^"\\]|\\.)*"/g, '""')
	.match(/-?[0-9][0-9.eE+-]*/g) || [])
	.filter((t) => /^-?[0-9]+$/.test(t)).join(',');

// DuckDB JSON text with DECIMAL(p,p) leaves `.5` made valid JSON.
const fixJsonDecimals = (s) =>
	s.replace(/([[:,])(-?)\.(\d)/g, '$1$20.$3');

// How many lines were equal only semantically, by the column's kind.
const semantic = new Map();

function valueEq(colfs, duck, col) {
	if (colfs === duck)
		return true;
	const eq = semanticEq(colfs, duck, col);
	if (eq) {
		const why = (col.int96 ? 'INT96 ' : '') + (col.variant ?
			'variant' : typeof col.kind === 'object' ? 'nested' :
			col.type.typeId === T.DECIMAL ? 'decimal' : col.kind);
		semantic.set(why, (semantic.get(why) || 0) + 1);
	}
	return eq;
}

function semanticEq(colfs, duck, col) {
	if (colfs === '\\N' || duck === '\\N')
		return false;
	const k = col.kind;
	if (k === 'f32' || k === 'float')
		return floatTextEq(colfs, duck, col.type.typeId === T.FLOAT);
	if (k === 'num' && col.type.typeId === T.DECIMAL)
		return decimalLead(duck) === colfs;
	if (k === 'quoted')
		return col.int96 && toMicros(colfs) === duck;
	if (typeof k === 'object' || k === 'variant') {
		// integers exactly as text (JSON.parse would round past 2^53)
		if (intTokens(colfs) !== intTokens(fixJsonDecimals(duck)))
			return false;
		try {
			return jsonEq(JSON.parse(colfs),
				JSON.parse(fixJsonDecimals(duck)), col);
		} catch {
			return false;
		}
	}
	return false;
}

// ---- per file -----------------------------------------------------------------

let inst, con;
async function duckOpen() {
	if (con)
		con.closeSync();
	inst = await DuckDBInstance.create(':memory:');
	con = await inst.connect();
	await con.run(`SET TimeZone = 'UTC'`);
	// a file DuckDB cannot read in 4 GB counts as one it cannot read
	await con.run(`SET memory_limit = '4GB'`);
}
await duckOpen();

const manifest = fs.readFileSync(path.join(corpus, 'MANIFEST.tsv'), 'utf8')
	.split('\n').slice(1).filter((l) => l).map((l) => l.split('\t'));
// With COLFS_DUCKDB_LIST (tests/parquet/crypt.sh), the files of that TSV
// instead: a path (absolute, or relative to CORPUS_DIR), the colfs-tool
// options (space-separated), DuckDB statements run before reading it
// (';'-separated, e.g. PRAGMA add_parquet_key) and read_parquet's extra
// parameters (e.g. ", encryption_config = {footer_key: 'k'}"), and
// optionally the only columns DuckDB can read (','-separated; the others
// are counted as not compared, e.g. the encrypted columns of a
// plaintext footer, which DuckDB reads only without keys).
const entries = process.env.COLFS_DUCKDB_LIST ?
	fs.readFileSync(process.env.COLFS_DUCKDB_LIST, 'utf8').split('\n')
		.filter((l) => l && !l.startsWith('#')).map((l) => {
			const [rel, opts, pre, params, only] = l.split('\t');
			return { rel, opts: opts ? opts.split(' ') : [],
				pre: pre ? pre.split(';').filter((x) => x) : [],
				params: params || '',
				only: only ? only.split(',') : null };
		}) :
	manifest.filter((f) => f[7] === 'parquet' &&
		Number(f[3]) <= maxBytes).map((f) => ({ rel: f[0], opts: [],
		pre: [], params: '', only: null }));

const totals = { files: 0, unreadable: 0, filesEqual: 0, colsEqual: 0,
	colsKnown: 0, colsSkipped: 0, colsFailed: 0, rows: 0, crcRefused: 0,
	variantCols: 0, variantEqual: 0, variantUnreadable: 0 };
const failures = [];

function colfsColumn(file, name, opts = []) {
	try {
		return { text: execFileSync(tool, [...opts, 'cat', file,
			'columns/' + name],
			{ maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] })
			.toString('utf8') };
	} catch (e) {
		return { error: (e.stderr ? e.stderr.toString() : e.message)
			.trim().split('\n')[0] };
	}
}

for (const { rel, opts, pre, params, only } of entries) {
	const file = path.isAbsolute(rel) ? rel : path.join(corpus, rel);
	totals.files++;
	let types, names, int96;
	try {
		for (const sql of pre)
			await con.run(sql);
		const r = await con.runAndReadAll(
			`SELECT * FROM read_parquet(${sqlStr(file)}${params}) LIMIT 0`);
		names = r.columnNames();
		types = r.columnTypesJson();
		if (params) {
			// parquet_schema takes no keys: colfs's schema says
			int96 = / int96 /.test(execFileSync(tool, [...opts, 'cat',
				file, 'schema']).toString('utf8'));
		} else {
			const s = await con.runAndReadAll(
				`SELECT name FROM parquet_schema(${sqlStr(file)}) ` +
				`WHERE type = 'INT96'`);
			int96 = s.getRows().length > 0;
		}
	} catch (e) {
		totals.unreadable++;
		console.log(`${rel}: duckdb cannot read: ` +
			e.message.split('\n')[0]);
		await duckOpen();
		continue;
	}
	const cols = [];
	const skipped = [];
	const used = new Map();
	names.forEach((name, i) => {
		let esc = escapeName(name);
		if (esc !== null) {
			const n = used.get(esc) || 0;
			used.set(esc, n + 1);
			if (n)
				esc += '%' + n;
		}
		if (only && !only.includes(name)) {
			skipped.push(`${name} (DuckDB cannot read it)`);
			return;
		}
		try {
			// GEOMETRY: WKT, as DuckDB prints geometry::VARCHAR
			const geo = types[i].typeId === T.GEOMETRY;
			const kind = geo ? 'str' : kindOf(types[i], true);
			if (esc === null)
				throw new Error('name longer than 200 bytes');
			cols.push({ name, esc, kind, type: types[i], int96,
				variant: hasVariant(kind),
				sql: geo ? `${sqlIdent(name)}::VARCHAR` :
					sqlIdent(name) });
		} catch (e) {
			skipped.push(`${name} (${e.message})`);
		}
	});
	let rows;
	try {
		const list = cols.map((c) => textExpr(c.sql, c.kind));
		const r = await con.runAndReadAll(
			`SELECT ${list.length ? list.join(', ') : '1'} FROM ` +
			`read_parquet(${sqlStr(file)}${params}) ORDER BY file_row_number`);
		rows = r.getRows();
	} catch (e) {
		totals.unreadable++;
		totals.variantUnreadable += cols.filter((c) => c.variant).length;
		console.log(`${rel}: duckdb cannot read: ` +
			e.message.split('\n')[0]);
		await duckOpen();
		continue;
	}
	totals.rows += rows.length;
	let eq = 0;
	const notes = [];
	cols.forEach((c, ci) => {
		const duck = rows.map((row) => {
			const v = row[ci];
			if (v === null)
				return '\\N';
			if (c.kind === 'f32')
				return renderFloat32(v);
			return c.kind === 'str' ? escapeText(v) : String(v);
		});
		let got = colfsColumn(file, c.esc, opts);
		let diff = null;
		// DuckDB does not verify page CRCs; colfs refuses a page whose
		// CRC is wrong unless told to serve it: when only checksums made
		// it fail, compare what it serves with checksums=ignore
		if (got.error !== undefined) {
			const lax = colfsColumn(file, c.esc,
				[...opts, '-o', 'checksums=ignore']);
			if (lax.error === undefined) {
				notes.push(`  ${c.name}: colfs refuses it (${got.error}); ` +
					'compared with -o checksums=ignore');
				totals.crcRefused++;
				got = lax;
			}
		}
		if (got.error !== undefined) {
			diff = `colfs-tool cat failed: ${got.error}`;
		} else {
			const lines = got.text.split('\n');
			if (lines[lines.length - 1] === '')
				lines.pop();
			else if (got.text.length)
				diff = 'colfs output does not end with a newline';
			for (let i = 0; !diff && i < Math.max(lines.length,
				duck.length); i++) {
				if (i >= lines.length || i >= duck.length) {
					diff = `colfs has ${lines.length} lines, ` +
						`duckdb ${duck.length} rows`;
				} else if (!valueEq(lines[i], duck[i], c)) {
					diff = `line ${i + 1}: colfs ${JSON.stringify(lines[i])}` +
						` duckdb ${JSON.stringify(duck[i])}`;
				}
			}
		}
		totals.variantCols += c.variant;
		if (!diff) {
			eq++;
			totals.variantEqual += c.variant;
			return;
		}
		const key = rel + '\t' + c.name;
		if (known.has(key)) {
			knownSeen.add(key);
			totals.colsKnown++;
			notes.push(`  known difference: ${c.name}: ${diff} ` +
				`(${known.get(key)})`);
		} else {
			totals.colsFailed++;
			notes.push(`  DIFFERS: ${c.name}: ${diff}`);
			failures.push(`${rel}: ${c.name}: ${diff}`);
		}
	});
	totals.colsEqual += eq;
	totals.colsSkipped += skipped.length;
	for (const s of skipped)
		notes.push(`  not compared: ${s}`);
	if (eq === cols.length && !skipped.length)
		totals.filesEqual++;
	console.log(`${rel}: ${rows.length} rows, ${eq}/${cols.length} ` +
		`columns equal` + (skipped.length ?
		`, ${skipped.length} not compared` : ''));
	for (const n of notes)
		console.log(n);
}

for (const key of known.keys()) {
	if (!knownSeen.has(key))
		console.log(`known difference no longer seen: ` +
			key.replace('\t', ': '));
}
console.log(`\n${totals.files} files: ${totals.unreadable} DuckDB cannot ` +
	`read, ${totals.filesEqual} equal in every column; ${totals.rows} rows; ` +
	`columns: ${totals.colsEqual} equal, ${totals.colsKnown} known ` +
	`differences, ${totals.colsSkipped} not compared, ` +
	`${totals.colsFailed} differ (${totals.crcRefused} compared with ` +
	'checksums=ignore because colfs refuses a bad page CRC)');
console.log(`VARIANT columns: ${totals.variantCols} compared, ` +
	`${totals.variantEqual} equal (${totals.variantUnreadable} more in ` +
	'files DuckDB cannot read)');
console.log('lines equal only semantically: ' + ([...semantic].map(([k, n]) =>
	`${k} ${n}`).join(', ') || 'none'));
if (failures.length) {
	console.log('\nunexplained differences:');
	for (const f of failures)
		console.log('  ' + f);
}
process.exit(failures.length ? 1 : 0);
