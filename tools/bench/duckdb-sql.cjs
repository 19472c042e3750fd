#!/usr/bin/env node
// Run SQL statements with DuckDB (@duckdb/node-api, installed by
// tests/values/duckdb-setup.sh into tests/values/node_modules) and print
// the rows of the last one, tab-separated.  Usage: duckdb-sql.cjs SQL...
// With DUCKDB_SQL_TIME set, also print "time SECONDS" to stderr: the
// statements' own time, node's start and the module's load excluded.
'use strict';
const path = require('path');
const { createRequire } = require('module');
const req = createRequire(path.join(__dirname, '..', '..', 'tests', 'values', 'package.json'));
const { DuckDBInstance } = req('@duckdb/node-api');

(async () => {
	const db = await DuckDBInstance.create(':memory:');
	const conn = await db.connect();
	let rows = [];
	const t0 = process.hrtime.bigint();
	for (const sql of process.argv.slice(2)) {
		const reader = await conn.runAndReadAll(sql);
		rows = reader.getRowsJS();
	}
	if (process.env.DUCKDB_SQL_TIME)
		console.error(`time ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(3)}`);
	for (const r of rows)
		console.log(r.map((v) => (v === null ? '\\N' : String(v))).join('\t'));
})().catch((e) => {
	console.error(`duckdb-sql: ${e.message}`);
	process.exit(1);
});
