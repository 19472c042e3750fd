// tests/values/render-oracle.mjs OUTFILE: random values with DuckDB's text
// for each, as tab-separated lines that test_render_oracle.c feeds to
// formats/core/render.c:
//
//   d    <ieee754 bits, 16 hex>   <text>      DOUBLE
//   f    <ieee754 bits, 8 hex> <DuckDB text> <text>   FLOAT: the text is
//        float32.mjs's (DuckDB prints ~2% of floats longer than needed;
//        its text must still read back to the same float)
//   dec  <scale> <unscaled>       <text>      DECIMAL(38, scale)
//   date <days since epoch>       <text>
//   time <microseconds>           <text>
//   ts   <s|ms|us|ns> <value> <0|1 utc> <text>
//   iv   <months> <days> <micros> <text>
//   blob <hex>                    <text>
//
// Exit 77 when @duckdb/node-api cannot be loaded.
import fs from 'node:fs';
import { renderFloat32 } from './float32.mjs';

let DuckDBInstance;
try {
	({ DuckDBInstance } = await import('@duckdb/node-api'));
} catch (e) {
	console.error('render-oracle: @duckdb/node-api is not installed: ' + e.message);
	process.exit(77);
}
const out = process.argv[2];
if (!out) {
	console.error('usage: node render-oracle.mjs OUTFILE');
	process.exit(2);
}
const N = 20000;
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run(`SET TimeZone = 'UTC'`);
const lines = [];
const rows = async (sql) => (await con.runAndReadAll(sql)).getRows();
const h = (salt) => `hash(range * 7919 + ${salt})`;

const dv = new DataView(new ArrayBuffer(8));
function dbits(x) {
	dv.setFloat64(0, x);
	return dv.getBigUint64(0).toString(16).padStart(16, '0');
}
function fbits(x) {
	dv.setFloat32(0, x);
	return dv.getUint32(0).toString(16).padStart(8, '0');
}

// doubles: random bit patterns, decimal-looking values, wide exponents
for (const [x, t] of await rows(`SELECT v, CAST(v AS VARCHAR) FROM (
	SELECT (${h(1)} % 2000000000)::DOUBLE / pow(10, (${h(2)} % 14)::INT) AS v FROM range(${N})
	UNION ALL SELECT (${h(3)}::DOUBLE / 7.0) * pow(10, (${h(4)} % 600)::INT - 300) FROM range(${N})
	UNION ALL SELECT (${h(5)} % 100000)::DOUBLE / 100 FROM range(${N}))`))
	lines.push(['d', dbits(x), t].join('\t'));
// floats
for (const [x, t] of await rows(`SELECT v, CAST(v AS VARCHAR) FROM (
	SELECT ((${h(6)} % 2000000000)::DOUBLE / pow(10, (${h(7)} % 14)::INT))::FLOAT AS v FROM range(${N})
	UNION ALL SELECT (((${h(8)} % 1000000000)::DOUBLE / 7.0) * pow(10, (${h(9)} % 70)::INT - 45))::FLOAT FROM range(${N}))`)) {
	if (Math.fround(Number(t)) !== x) {
		console.error(`render-oracle: DuckDB's ${t} does not read back as ${x}`);
		process.exit(1);
	}
	lines.push(['f', fbits(x), t, renderFloat32(x)].join('\t'));
}
// decimals: random digits cast from text; the unscaled integer is the
// value times 10^scale
for (const s of [0, 2, 9, 18, 30, 38]) {
	const t = `DECIMAL(38,${s})`;
	for (const [u, txt] of await rows(`SELECT sg || '0' || ip || fp, CAST(CAST(sg || '0' || ip || (CASE WHEN fp = '' THEN '' ELSE '.' || fp END) AS ${t}) AS VARCHAR) FROM (
		SELECT (CASE WHEN ${h(40 + s)} % 2 = 0 THEN '-' ELSE '' END) AS sg,
			substr(lpad((${h(50 + s)} % 100000000000000000)::VARCHAR, 17, '0') ||
			       lpad((${h(60 + s)} % 100000000000000000)::VARCHAR, 17, '0') ||
			       lpad((${h(70 + s)} % 10000)::VARCHAR, 4, '0'), 1 + (${h(75 + s)} % ${38 - s + 1})::INT, ${38 - s}) AS ip,
			rpad(lpad((${h(80 + s)} % 1000000)::VARCHAR, ${Math.min(s, 6)}, '0'), ${s}, '3') AS fp
		FROM range(300))`))
		lines.push(['dec', s, u, txt].join('\t'));
}
// dates over the whole range DuckDB supports
for (const [d, t] of await rows(`SELECT (v - DATE '1970-01-01')::BIGINT, CAST(v AS VARCHAR) FROM (
	SELECT DATE '1970-01-01' + ((${h(90)} % 7000000)::BIGINT - 3500000)::INT AS v FROM range(${N}))`))
	lines.push(['date', d, t].join('\t'));
// times
for (const [us, t] of await rows(`SELECT (${h(91)} % 86400000001)::BIGINT AS us,
	CAST(TIME '00:00:00' + to_microseconds(us) AS VARCHAR) FROM range(${N})`))
	lines.push(['time', us, t].join('\t'));
// timestamps in every unit
for (const [v, t] of await rows(`SELECT epoch_us(x)::VARCHAR, CAST(x AS VARCHAR) FROM (
	SELECT make_timestamp((${h(92)} % 500000000000000000)::BIGINT - 250000000000000000) AS x FROM range(${N}))`))
	lines.push(['ts', 'us', v, 0, t].join('\t'));
for (const [v, t] of await rows(`SELECT epoch_us(x)::VARCHAR, CAST(x AS VARCHAR) FROM (
	SELECT make_timestamp((${h(93)} % 4000000000000000)::BIGINT - 2000000000000000)::TIMESTAMPTZ AS x FROM range(${N}))`))
	lines.push(['ts', 'us', v, 1, t].join('\t'));
for (const [v, t] of await rows(`SELECT epoch_ns(x)::VARCHAR, CAST(x AS VARCHAR) FROM (
	SELECT make_timestamp_ns(((${h(94)} % 18000000000000000000)::HUGEINT - 9000000000000000000)::BIGINT) AS x FROM range(${N}))`))
	lines.push(['ts', 'ns', v, 0, t].join('\t'));
for (const [v, t] of await rows(`SELECT epoch_ms(x)::VARCHAR, CAST(x AS VARCHAR) FROM (
	SELECT make_timestamp((${h(95)} % 400000000000000)::BIGINT * 1000 - 200000000000000000)::TIMESTAMP_MS AS x FROM range(${N}))`))
	lines.push(['ts', 'ms', v, 0, t].join('\t'));
for (const [v, t] of await rows(`SELECT epoch(x)::BIGINT::VARCHAR, CAST(x AS VARCHAR) FROM (
	SELECT make_timestamp((${h(96)} % 400000000000)::BIGINT * 1000000 - 200000000000000000)::TIMESTAMP_S AS x FROM range(${N}))`))
	lines.push(['ts', 's', v, 0, t].join('\t'));
// intervals from known parts
for (const [m, d, us, t] of await rows(`SELECT m, d, us, CAST(to_months(m) + to_days(d) + to_microseconds(us) AS VARCHAR) FROM (
	SELECT ((${h(97)} % 2000)::INT - 1000) * (${h(98)} % 2)::INT AS m,
	       ((${h(99)} % 800)::INT - 400) * (${h(100)} % 2)::INT AS d,
	       ((${h(101)} % 800000000000)::BIGINT - 400000000000) * (${h(102)} % 2)::BIGINT AS us
	FROM range(${N}))`))
	lines.push(['iv', m, d, us, t].join('\t'));
// blobs of every byte
for (const [x, t] of await rows(`SELECT hex(b), CAST(b AS VARCHAR) FROM (
	SELECT unhex(lpad(to_hex(${h(103)}), 16, '0') || lpad(to_hex(range % 256), 2, '0')) AS b FROM range(2000))`))
	lines.push(['blob', x, t].join('\t'));

fs.writeFileSync(out, lines.join('\n') + '\n');
console.log(`wrote ${lines.length} values to ${out}`);
