// tests/values/probe.mjs EXPR...: print DuckDB's text, CAST(EXPR AS
// VARCHAR), for each SQL expression (how the rendering forms of
// docs/values.md were looked up).  Needs duckdb-setup.sh first.
import { DuckDBInstance } from '@duckdb/node-api';
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const exprs = process.argv.slice(2);
for (const e of exprs) {
  try {
    const r = await con.runAndReadAll(`SELECT CAST((${e}) AS VARCHAR) AS v`);
    console.log(e, ' => ', JSON.stringify(r.getRows()[0][0]));
  } catch (err) { console.log(e, ' !! ', err.message.split('\n')[0]); }
}
