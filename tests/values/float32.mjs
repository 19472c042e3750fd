// tests/values/float32.mjs: FLOAT (binary32) values rendered as
// docs/values.md says, computed independently of formats/core/render.c
// with exact BigInt arithmetic: the fewest significant digits whose
// decimal lies in the float's rounding interval (bounds included when the
// significand is even; half as wide below a power of two), the candidate
// nearest to the value (ties to an even last digit), laid out as DuckDB
// lays out numbers.  DuckDB itself prints about 2% of floats with more
// digits than needed (the double's shortest form), so the harness uses
// this instead of DuckDB's text for FLOAT values.

const pow10 = (k) => 10n ** BigInt(k);

// Compare d * 10^k with X * 2^s (d, X BigInt >= 0).
function cmp(d, k, X, s) {
	let a = d, b = X;
	if (k >= 0) a *= pow10(k); else b *= pow10(-k);
	if (s >= 0) b <<= BigInt(s); else a <<= BigInt(-s);
	return a < b ? -1 : a > b ? 1 : 0;
}

// Digits and decimal exponent (of the first digit) of the shortest form.
function shortest(m, e, irregular) {
	// value = m * 2^e = V * 2^(e-2); bounds H, L in the same unit
	const s = e - 2;
	const V = 4n * BigInt(m), H = V + 2n, L = V - (irregular ? 1n : 2n);
	const inclusive = m % 2 === 0;
	const inside = (d, k) => {
		const lo = cmp(d, k, L, s), hi = cmp(d, k, H, s);
		return (inclusive ? lo >= 0 : lo > 0) && (inclusive ? hi <= 0 : hi < 0);
	};
	// E = floor(log10(value)), exactly
	let E = Math.floor(Math.log10(m * 2 ** e));
	while (cmp(1n, E, V, s) > 0) E--;
	while (cmp(1n, E + 1, V, s) <= 0) E++;
	for (let p = 1; p <= 9; p++) {
		const k = E - p + 1;
		// d0 = floor(value / 10^k)
		let num = V, den = 1n;
		if (s >= 0) num <<= BigInt(s); else den <<= BigInt(-s);
		if (k >= 0) den *= pow10(k); else num *= pow10(-k);
		const d0 = num / den;
		const c = [d0, d0 + 1n].filter((d) => inside(d, k));
		if (!c.length)
			continue;
		let d = c[0];
		if (c.length === 2) {
			// nearer to the value; ties to even
			const twice = 2n * num - (2n * d0 + 1n) * den;  // sign of value - midpoint
			d = twice < 0n ? d0 : twice > 0n ? d0 + 1n : (d0 % 2n === 0n ? d0 : d0 + 1n);
		}
		let digits = d.toString();
		let exp = k + digits.length - 1;
		digits = digits.replace(/0+$/, '') || '0';
		return [digits, exp];
	}
	throw new Error('no float representation found');
}

// DuckDB's layout of digits d1..dn with exponent E of d1.
export function layout(neg, digits, E) {
	let out = neg ? '-' : '';
	if (E < -4 || E >= 16) {
		out += digits[0] + (digits.length > 1 ? '.' + digits.slice(1) : '');
		const a = Math.abs(E);
		return out + 'e' + (E < 0 ? '-' : '+') + (a < 10 ? '0' : '') + a;
	}
	if (E < 0)
		return out + '0.' + '0'.repeat(-E - 1) + digits;
	const intLen = E + 1;
	const ip = digits.slice(0, intLen).padEnd(intLen, '0');
	const fp = digits.slice(intLen);
	return out + ip + '.' + (fp || '0');
}

export function renderFloat32(x) {
	if (Number.isNaN(x)) return 'nan';
	if (x === Infinity) return 'inf';
	if (x === -Infinity) return '-inf';
	const neg = x < 0 || Object.is(x, -0);
	if (x === 0) return neg ? '-0.0' : '0.0';
	const dv = new DataView(new ArrayBuffer(4));
	dv.setFloat32(0, Math.abs(x));
	const bits = dv.getUint32(0);
	const be = bits >>> 23, frac = bits & 0x7fffff;
	const m = be ? frac | 0x800000 : frac;
	const e = be ? be - 150 : -149;
	const [digits, E] = shortest(m, e, frac === 0 && be > 1);
	return layout(neg, digits, E);
}
