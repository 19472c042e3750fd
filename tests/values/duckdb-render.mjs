// tests/values/duckdb-render.mjs: DuckDB SQL that renders a value the way
// docs/values.md says (shared by gen-matrix.mjs and
// tests/parquet/corpus-vs-duckdb.mjs).
//
// Rendering kinds of a value tree:
//   num     rendered by CAST(x AS VARCHAR) (ints, decimals, bool)
//   float   num, but nan/inf/-inf become JSON strings inside nested values
//   f32     FLOAT at the top level: the caller renders the value DuckDB
//           reads (float32.mjs; DuckDB's own text is not always shortest)
//   str     text with escapes; a JSON string inside nested values
//   blob    DuckDB's BLOB text (\xHH); a JSON string of that text
//   quoted  CAST(x AS VARCHAR); a JSON string of that text (dates, times,
//           timestamps, uuid, interval)
//   variant a VARIANT: DuckDB's JSON of it (CAST(x AS JSON)), at the top
//           level too; a variant null is NULL
//   {list: k}, {struct: [[name, k]...]}, {map: [kk, vk]}

export const sqlStr = (s) => `'${s.replace(/'/g, "''")}'`;
export const sqlIdent = (s) => `"${s.replace(/"/g, '""')}"`;

// SQL rendering `x` (of rendering kind k) as our compact JSON text; never
// NULL (a NULL value is the text null).
export function jsonExpr(x, k) {
	let e;
	if (k === 'num')
		e = `CAST(${x} AS VARCHAR)`;
	else if (k === 'float')
		e = `CASE WHEN isnan(${x}) THEN '"nan"' WHEN isinf(${x}) AND ${x} > 0 THEN '"inf"' ` +
			`WHEN isinf(${x}) THEN '"-inf"' ELSE CAST(${x} AS VARCHAR) END`;
	else if (k === 'str')
		e = `CAST(to_json(CAST(${x} AS VARCHAR)) AS VARCHAR)`;
	else if (k === 'blob')
		e = `'"' || replace(CAST(${x} AS VARCHAR), '\\', '\\\\') || '"'`;
	else if (k === 'quoted')
		e = `'"' || CAST(${x} AS VARCHAR) || '"'`;
	else if (k === 'variant')
		e = `CAST(CAST(${x} AS JSON) AS VARCHAR)`;
	else if (k.list !== undefined)
		e = `'[' || array_to_string(list_transform(${x}, lambda el: ${jsonExpr('el', k.list)}), ',') || ']'`;
	else if (k.struct !== undefined)
		e = `CASE WHEN ${x} IS NULL THEN NULL ELSE '{' || ` + k.struct.map(([n, fk], idx) =>
			`${sqlStr((idx ? ',' : '') + JSON.stringify(n) + ':')} || ${jsonExpr(`(${x}).${sqlIdent(n)}`, fk)}`).join(' || ') + ` || '}' END`;
	else if (k.map !== undefined)
		e = `'{' || array_to_string(list_transform(map_entries(${x}), lambda me: ` +
			`CAST(to_json(CAST(me.key AS VARCHAR)) AS VARCHAR) || ':' || ${jsonExpr('me.value', k.map[1])}), ',') || '}'`;
	else
		throw new Error('unknown kind ' + JSON.stringify(k));
	return `coalesce(${e}, 'null')`;
}

// Top-level text: scalars as text, nested values as one line of JSON; a
// NULL at the top level is the null token whatever the type.
export function textExpr(x, k) {
	if (k === 'f32')
		return x;
	if (typeof k === 'object' || k === 'variant')
		return `CASE WHEN ${x} IS NULL THEN NULL ELSE ${jsonExpr(x, k)} END`;
	return `CAST(${x} AS VARCHAR)`;
}

// docs/values.md string escaping (text form).
export function escapeText(s) {
	return s.replace(/[\x00-\x1f\x7f\\]/g, (c) => {
		if (c === '\\') return '\\\\';
		if (c === '\n') return '\\n';
		if (c === '\r') return '\\r';
		if (c === '\t') return '\\t';
		return '\\x' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
	});
}

