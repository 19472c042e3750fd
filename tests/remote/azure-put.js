// tests/remote/azure-put.js: requests to an Azure Blob endpoint (Azurite)
// signed with Shared Key by node's own HMAC, independent of colfs's
// signing (formats/remote/azure.c), for tests/remote/azure.sh.
//   node azure-put.js container NAME [public]   create a container
//   node azure-put.js blob NAME/PATH FILE        upload a block blob
//   node azure-put.js sas                        print an account SAS
// The endpoint (http://HOST:PORT/ACCOUNT), the account and its key come
// from AZ_ENDPOINT, AZ_ACCOUNT, AZ_KEY (never the command line).
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');

const endpoint = process.env.AZ_ENDPOINT;
const account = process.env.AZ_ACCOUNT;
const key = Buffer.from(process.env.AZ_KEY, 'base64');
const version = '2021-08-06';

// The path as Azurite canonicalizes it (and colfs sends it): encodeURI.
function enc(p) {
	return encodeURI(p);
}

// The Shared Key string of the Blob service (version 2015-02-21 and later).
function sign(verb, path, query, headers) {
	const h = (n) => headers[n] === undefined ? '' : String(headers[n]);
	const len = h('Content-Length') === '0' ? '' : h('Content-Length');
	const xms = Object.keys(headers).filter((k) => k.startsWith('x-ms-'))
		.sort().map((k) => `${k}:${headers[k]}\n`).join('');
	const u = new URL(endpoint);
	let res = `/${account}${u.pathname}/${enc(path)}`;
	for (const k of Object.keys(query).sort())
		res += `\n${k}:${query[k]}`;
	const s = [verb, '', '', len, '', h('Content-Type'), '', '', '', '',
		'', ''].join('\n') + '\n' + xms + res;
	return crypto.createHmac('sha256', key).update(s, 'utf8')
		.digest('base64');
}

function request(verb, path, query, headers, body) {
	headers['x-ms-date'] = new Date().toUTCString();
	headers['x-ms-version'] = version;
	headers['Content-Length'] = body ? body.length : 0;
	headers.Authorization = `SharedKey ${account}:${sign(verb, path, query, headers)}`;
	const qs = Object.keys(query).map((k) => `${k}=${encodeURIComponent(query[k])}`).join('&');
	const u = new URL(`${endpoint}/${enc(path)}${qs ? '?' + qs : ''}`);
	return new Promise((resolve, reject) => {
		const r = http.request(u, {method: verb, headers}, (res) => {
			let out = '';
			res.on('data', (d) => { out += d; });
			res.on('end', () => res.statusCode < 300 ? resolve()
				: reject(new Error(`${verb} ${path}: HTTP ${res.statusCode}: ${out}`)));
		});
		r.on('error', reject);
		if (body)
			r.write(body);
		r.end();
	});
}

function sas() {
	const p = {sv: '2018-11-09', ss: 'b', srt: 'sco', sp: 'rl',
		se: '2099-01-01T00:00:00Z', spr: 'http'};
	const s = [account, p.sp, p.ss, p.srt, '', p.se, '', p.spr, p.sv, '']
		.join('\n');
	p.sig = crypto.createHmac('sha256', key).update(s, 'utf8')
		.digest('base64');
	return Object.keys(p).map((k) => `${k}=${encodeURIComponent(p[k])}`)
		.join('&');
}

async function main() {
	const [cmd, name, arg] = process.argv.slice(2);
	if (cmd === 'container') {
		const h = {};
		if (arg === 'public')
			h['x-ms-blob-public-access'] = 'container';
		await request('PUT', name, {restype: 'container'}, h);
	} else if (cmd === 'blob') {
		await request('PUT', name, {}, {'x-ms-blob-type': 'BlockBlob'},
			fs.readFileSync(arg));
	} else if (cmd === 'sas') {
		process.stdout.write(sas() + '\n');
	} else {
		throw new Error(`unknown command ${cmd}`);
	}
}
main().catch((e) => { console.error(e.message); process.exit(1); });
