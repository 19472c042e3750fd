// tests/parquet/gen-bloom-types.mjs OUTDIR: two Parquet files written by
// DuckDB for the bloom filter lookups (bloom_filter/might_contain/<value>)
// of every type a filter can hold.  present.parquet: 4000 rows, each
// column cycling through 24 distinct values (so DuckDB dictionary-encodes
// it and writes a bloom filter), with NULLs; absent.parquet: the same
// columns with 40 other values of the same types (k = 24..63).  Used by
// `test_pq_values bloom-types`.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const req = createRequire(new URL('../values/package.json', import.meta.url));
const { DuckDBInstance } = await import(
	pathToFileURL(req.resolve('@duckdb/node-api')).href);

const out = process.argv[2];
if (!out) {
	console.error('usage: node gen-bloom-types.mjs OUTDIR');
	process.exit(2);
}

// column name -> SQL expression of the integer {k} (distinct k, distinct value)
const cols = {
	c_tinyint: '{k}::TINYINT - 60',
	c_smallint: '({k} * 900 - 30000)::SMALLINT',
	c_integer: '({k} * 100003 - 2000000)::INTEGER',
	c_bigint: '{k}::BIGINT * 1000000007 * 1000 - 5',
	c_utinyint: '({k} * 3)::UTINYINT',
	c_usmallint: '({k} * 811)::USMALLINT',
	c_uinteger: '(4294967295 - {k} * 7)::UINTEGER',
	c_ubigint: '(18446744073709551615::UBIGINT - {k}::UBIGINT * 3)',
	c_dec4: '({k} * 1.25 - 50)::DECIMAL(4,2)',
	c_dec9: '({k} * 12345.678 - 300000)::DECIMAL(9,3)',
	c_dec18: '({k} * 123456789.123456 - 4000000000)::DECIMAL(18,6)',
	c_dec38: "(CASE WHEN {k} % 2 = 0 THEN '-' ELSE '' END || " +
		"'1234567890123456789012345' || {k}::VARCHAR || '.0123456789')" +
		'::DECIMAL(38,10)',
	c_float: '({k} * 0.1 - 2)::FLOAT',
	c_double: '({k} * 1.5e-7 - 1e300 * ({k} % 2))::DOUBLE',
	c_varchar: "'v' || {k}::VARCHAR || CASE WHEN {k} % 3 = 0 THEN " +
		"e'\\ttab/slash%pct' ELSE '' END",
	c_blob: "unhex(printf('%02x00ff5c', {k}))",
	c_date: "DATE '1999-12-25' + ({k} * 37 - 500)::INTEGER",
	c_date_bc: "DATE '0044-03-15 (BC)' + {k}::INTEGER",
	c_time: 'make_time({k} % 24, ({k} * 7) % 60, ({k} * 1.123456) % 60)',
	c_timetz: 'make_time({k} % 24, ({k} * 7) % 60, ({k} * 1.123456) % 60)::TIMETZ',
	c_ts: "TIMESTAMP '2021-03-04 05:06:07.123456' + " +
		'to_microseconds({k}::BIGINT * 123456789)',
	c_ts_s: "(TIMESTAMP '2021-03-04 05:06:07' + to_seconds({k}::BIGINT * 86399))::TIMESTAMP_S",
	c_ts_ms: "(TIMESTAMP '1969-03-04 05:06:07.123' + " +
		'to_milliseconds({k}::BIGINT * 12345678))::TIMESTAMP_MS',
	c_ts_ns: "(TIMESTAMP_NS '2021-03-04 05:06:07.123456789' + " +
		'to_microseconds({k}::BIGINT * 1234567))',
	c_tstz: "(TIMESTAMP '2021-03-04 05:06:07.5' + " +
		'to_microseconds({k}::BIGINT * 987654321))::TIMESTAMPTZ',
	c_uuid: "(substr(md5({k}::VARCHAR), 1, 8) || '-' || substr(md5({k}::VARCHAR), 9, 4) || '-' || " +
		"substr(md5({k}::VARCHAR), 13, 4) || '-' || substr(md5({k}::VARCHAR), 17, 4) || '-' || " +
		'substr(md5({k}::VARCHAR), 21, 12))::UUID',
	c_interval: 'to_months({k}) + to_days({k} * 2) + to_milliseconds({k} * 1234)',
};

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run("SET TimeZone = 'UTC'");
const select = (kexpr) => Object.entries(cols).map(([n, e]) =>
	`CASE WHEN r % 17 = 5 THEN NULL ELSE ${e.replaceAll('{k}', kexpr)} END AS ${n}`)
	.join(',\n  ');
for (const [file, rows, kexpr] of [['present', 4000, '(r % 24)'],
				      ['absent', 40, '(r + 24)']]) {
	await con.run(`COPY (SELECT ${select(kexpr)} FROM range(${rows}) t(r))
		TO '${out}/${file}.parquet' (FORMAT parquet, ROW_GROUP_SIZE 100000)`);
}
console.log(`gen-bloom-types: wrote ${out}/present.parquet and absent.parquet`);
