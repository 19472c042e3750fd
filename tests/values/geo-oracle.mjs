// tests/values/geo-oracle.mjs OUTDIR FILE...: DuckDB's reading of the
// geometry columns of each FILE (Parquet GEOMETRY/GEOGRAPHY), and of a
// GEOMETRY file DuckDB writes itself (OUTDIR/duckdb-geometry.parquet).
// Writes OUTDIR/list: one "FILE<TAB>COLUMN<TAB>EXPECTED" line per column,
// EXPECTED a file of the column's values as ::VARCHAR, one a line, NULL
// as \N (colfs's default null token).
import { DuckDBInstance } from '@duckdb/node-api';
import { writeFileSync } from 'node:fs';

const [out, ...files] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
const q = (s) => c.runAndReadAll(s).then((r) => r.getRows());

// DuckDB-written GEOMETRY values (DuckDB 1.5 has GEOMETRY built in; the
// spatial extension is not needed to write or read them)
const wkts = [
	'POINT (1 2)', 'POINT (1.5 -0.0)', 'POINT (1e20 1e-7)',
	'POINT (0.30000000000000004 123456789012)', 'POINT EMPTY',
	'POINT Z (1 2 3)', 'LINESTRING (1 2, 3 4)', 'LINESTRING EMPTY',
	'LINESTRING Z (1 2 3, 4 5 6)',
	'POLYGON ((0 0, 1 0, 1 1, 0 0), (0.1 0.1, 0.2 0.1, 0.1 0.1))',
	'POLYGON EMPTY', 'POLYGON Z ((0 0 1, 1 0 1, 1 1 1, 0 0 1))',
	'MULTIPOINT (1 2, 3 4)', 'MULTIPOINT EMPTY', 'MULTIPOINT (EMPTY, 1 2)',
	'MULTILINESTRING ((1 2, 3 4), (5 6, 7 8))', 'MULTILINESTRING EMPTY',
	'MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((2 2, 3 2, 3 3, 2 2)))',
	'MULTIPOLYGON EMPTY',
	'GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (1 2, 3 4), GEOMETRYCOLLECTION (POINT EMPTY))',
	'GEOMETRYCOLLECTION EMPTY', 'GEOMETRYCOLLECTION Z (POINT Z (1 2 3))',
	'POINT M (1 2 3)', 'POINT ZM (1 2 3 4)', 'LINESTRING ZM (1 2 3 4, 5 6 7 8)',
];
// DuckDB's default writes GeoParquet 1.0 (`geo` metadata); it falls back
// to a plain BLOB when a value has M, so the M values go to a second
// file written with the GEOMETRY logical type (GEOPARQUET_VERSION 'V2').
const own = `${out}/duckdb-geometry.parquet`;
const own2 = `${out}/duckdb-geometry-v2.parquet`;
const vals = wkts.map((w, i) => `(${i}, '${w}')`).join(', ');
await q(`CREATE TABLE g AS SELECT i, w::GEOMETRY AS g FROM (VALUES ${vals}, (${wkts.length}, NULL)) t(i, w)`);
await q(`COPY (SELECT g FROM g WHERE i < ${wkts.length - 3} OR g IS NULL ORDER BY i) TO '${own}' (FORMAT parquet)`);
await q(`COPY (SELECT g FROM g ORDER BY i) TO '${own2}' (FORMAT parquet, GEOPARQUET_VERSION 'V2')`);
// the same values stored uncompressed: geo-oracle.sh damages their bytes
await q(`COPY (SELECT g FROM g ORDER BY i) TO '${out}/duckdb-geometry-plain.parquet' (FORMAT parquet, GEOPARQUET_VERSION 'V2', COMPRESSION uncompressed)`);

// Malformed WKB in a GeoParquet column (stored uncompressed, so that the
// problem's offset is the bad byte's place in the file): a good point, a
// point cut short, a linestring claiming 2^31-1 points, a type 8, a
// collection nested 100 deep, a NULL.
const bad = `${out}/malformed-wkb.parquet`;
const hex = (h) => `'${h.replace(/(..)/g, '\\x$1')}'::BLOB`;
const deep = '0107000000010000000'.slice(0, 18).repeat(100) + '010700000000000000';
const badvals = [
	'0101000000000000000000f03f0000000000000040',
	'0101000000000000000000f03f',
	'0102000000ffffff7f',
	'010800000000000000',
	deep,
].map((h) => `(${hex(h)})`).join(', ');
const geo = JSON.stringify({ version: '1.0.0', primary_column: 'g',
	columns: { g: { encoding: 'WKB', geometry_types: [] } } });
await q(`COPY (SELECT * FROM (VALUES ${badvals}, (NULL)) t(g)) TO '${bad}' (FORMAT parquet, COMPRESSION uncompressed, KV_METADATA {geo: '${geo}'})`);

const list = [];
let k = 0;
for (const f of [own, own2, ...files]) {
	const cols = await q(`DESCRIBE SELECT * FROM read_parquet('${f}')`);
	for (const [name, type] of cols) {
		if (!/^(GEOMETRY|GEOGRAPHY)/.test(type)) {
			if (f === own || f === own2)
				throw new Error(`${f}: ${name} is ${type}, not GEOMETRY`);
			continue;
		}
		const rows = await q(`SELECT "${name}"::VARCHAR FROM read_parquet('${f}')`);
		const exp = `${out}/expected-${k++}.txt`;
		writeFileSync(exp, rows.map((r) => (r[0] === null ? '\\N' : r[0]) + '\n').join(''));
		list.push(`${f}\t${name}\t${exp}\n`);
	}
}
writeFileSync(`${out}/list`, list.join(''));
