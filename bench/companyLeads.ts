import { execFileSync } from 'child_process';
import path from 'path';

import { runNode } from '../test/harness/run';
import { sandboxCredential } from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';

/**
 * Company Enrichment over a lead list whose company is known by the lead's email address, against
 * the sandbox, pacing off, Output: Result File: a 10,000-lead file of which 40 % write from a
 * free or disposable provider (the share web forms see), every business lead at a company of its
 * own. Printed: the requests sent against the leads (by default the webmail leads cost none), and
 * the rows per second of the email column over today's way, a domain column holding the same
 * leads' domains (worked out beforehand, as an expression did), in rounds whose order alternates.
 * The email column with skipping off sends exactly the requests of the domain column: their ratio
 * is the cost of reading the addresses; with skipping on, the ratio is what the skipped requests
 * save. Then the lists' cost: their bytes, and the heap they take once made into the lookup map
 * (a separate Node process, so that nothing else is on its heap).
 */
const LEADS = 10_000;
const WEBMAIL_SHARE = 0.4;
const ROUNDS = Number(process.env.BENCH_COMPANY_ROUNDS ?? 3);

/** Common providers, the first ones more often, as in a real list; two disposable ones among them. */
const WEBMAIL = [
	'gmail.com',
	'gmail.com',
	'gmail.com',
	'yahoo.com',
	'outlook.com',
	'hotmail.com',
	'icloud.com',
	'gmx.de',
	'web.de',
	'mail.ru',
	'qq.com',
	'naver.com',
	'orange.fr',
	'mailinator.com',
	'yopmail.com',
];

/** Every 5th lead of 2 is webmail (40 %), spread through the file. */
const isWebmail = (index: number) => (index * 2) % 5 < 2;

function leadDomain(index: number): string {
	return isWebmail(index) ? WEBMAIL[index % WEBMAIL.length] : `company${index}.io`;
}

function leadsFile(): Buffer {
	let text = 'name,email,domain\n';
	for (let index = 0; index < LEADS; index++)
		text += `Lead ${index},lead${index}@${leadDomain(index)},${leadDomain(index)}\n`;
	return Buffer.from(text);
}

interface Took {
	seconds: number;
	/** This process's CPU seconds (the node and the sandbox both run here): what other processes on the machine disturb least. */
	cpuSeconds: number;
	requests: number;
	skipped: number;
}

async function enrich(
	sandbox: Sandbox,
	file: Buffer,
	column: 'email' | 'domain',
	skipWebmail: boolean,
	rows = LEADS,
	sendRepeatsOnce = true,
): Promise<Took> {
	sandbox.reset();
	const started = performance.now();
	const cpu = process.cpuUsage();
	const result = await runNode({
		type: 'abstractCompany',
		parameters: {
			input: 'csvFile',
			binaryPropertyName: 'data',
			domainColumn: column,
			output: 'resultFile',
			resultBinaryPropertyName: 'result',
			options: { skipWebmail, sendRepeatsOnce },
		},
		credential: sandboxCredential(sandbox, 'company'),
		items: [
			{ json: {}, binary: { data: { bytes: file, mimeType: 'text/csv', fileName: 'leads.csv' } } },
		],
	});
	const seconds = (performance.now() - started) / 1000;
	const used = process.cpuUsage(cpu);
	const cpuSeconds = (used.user + used.system) / 1e6;
	if (result.error) throw result.error;
	const summary = result.items[0].json;
	if (summary.rows !== rows) throw new Error(`expected ${rows} rows, got ${String(summary.rows)}`);
	return {
		seconds,
		cpuSeconds,
		requests: sandbox.requests('company').length,
		skipped: Number(summary.skipped ?? 0),
	};
}

const WAYS = [
	{ name: 'domain column (today)', column: 'domain', skipWebmail: true },
	{ name: 'email column, skipping off', column: 'email', skipWebmail: false },
	{ name: 'email column (default: webmail skipped)', column: 'email', skipWebmail: true },
] as const;

async function leads(sandbox: Sandbox) {
	const file = leadsFile();
	console.log(
		`(a) ${LEADS.toLocaleString('en-US')} leads, ${WEBMAIL_SHARE * 100} % at webmail providers, one CSV file (Output: Result File), pacing off, ${ROUNDS} rounds, the order alternating`,
	);
	await enrich(
		sandbox,
		Buffer.from(file.toString().split('\n').slice(0, 501).join('\n')),
		'email',
		true,
		500,
	); // warm-up
	const figures = new Map<string, Took[]>(WAYS.map((way) => [way.name, []]));
	for (let round = 1; round <= ROUNDS; round++) {
		const order = round % 2 === 1 ? WAYS : [...WAYS].reverse();
		for (const way of order)
			figures.get(way.name)?.push(await enrich(sandbox, file, way.column, way.skipWebmail));
	}
	const median = (values: number[]) =>
		[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
	const baseline = median((figures.get(WAYS[0].name) ?? []).map((took) => LEADS / took.seconds));
	const cpuBaseline = median(
		(figures.get(WAYS[0].name) ?? []).map((took) => LEADS / took.cpuSeconds),
	);
	// Each webmail provider's leads share one request above (Send Repeated Values Once): with it off,
	// as for a list sent item by item in older workflows, every webmail lead pays. One run: a count.
	const everyLead = await enrich(sandbox, file, 'domain', true, LEADS, false);
	console.log(
		`    domain column, Send Repeated Values Once off: ${everyLead.requests.toLocaleString('en-US')} requests for ${LEADS.toLocaleString('en-US')} leads; the email column's default with it off: ${(await enrich(sandbox, file, 'email', true, LEADS, false)).requests.toLocaleString('en-US')}`,
	);
	for (const way of WAYS) {
		const took = figures.get(way.name) ?? [];
		const rowsPerSecond = took.map((one) => LEADS / one.seconds);
		const rowsPerCpuSecond = took.map((one) => LEADS / one.cpuSeconds);
		const { requests, skipped } = took[0];
		console.log(
			`    ${way.name}: ${requests.toLocaleString('en-US')} requests for ${LEADS.toLocaleString('en-US')} leads (${(requests / LEADS).toFixed(2)} per lead, ${skipped.toLocaleString('en-US')} skipped), ` +
				`${median(rowsPerSecond).toFixed(0)} rows/s (rounds: ${rowsPerSecond.map((value) => value.toFixed(0)).join(', ')}), ${(median(rowsPerSecond) / baseline).toFixed(2)}x the domain column's; ` +
				`${median(rowsPerCpuSecond).toFixed(0)} rows per CPU second, ${(median(rowsPerCpuSecond) / cpuBaseline).toFixed(2)}x`,
		);
	}
}

/** The lists' size and heap, in a Node process of their own (with --expose-gc, so that the heap is measured after a collection). */
function listCost() {
	const dist = path.join(__dirname, '..', '..', 'dist', 'nodes', 'shared', 'values');
	const script = `
		const collect = global.gc;
		const heap = () => { collect(); collect(); return process.memoryUsage().heapUsed; };
		const before = heap();
		const lists = require(${JSON.stringify(path.join(dist, 'mailProviderLists.js'))});
		const loaded = heap();
		const { mailProviderOf } = require(${JSON.stringify(path.join(dist, 'mailProviders.js'))});
		mailProviderOf('gmail.com');
		const used = heap();
		const started = performance.now();
		let found = 0;
		for (let index = 0; index < 1e6; index++) if (mailProviderOf(index % 2 ? 'gmail.com' : 'mail.company' + (index % 1000) + '.io')) found++;
		const perLookup = (performance.now() - started) / 1e6 * 1000;
		const characters = lists.FREE_MAIL_DOMAINS.length + lists.DISPOSABLE_MAIL_DOMAINS.length + lists.RELAY_MAIL_DOMAINS.length;
		const domains = [lists.FREE_MAIL_DOMAINS, lists.DISPOSABLE_MAIL_DOMAINS, lists.RELAY_MAIL_DOMAINS].map((list) => list.split('\\n').length);
		console.log(JSON.stringify({ characters, domains, loaded: loaded - before, used: used - before, perLookup, found }));`;
	const figures = JSON.parse(
		execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' }),
	) as {
		characters: number;
		domains: number[];
		loaded: number;
		used: number;
		perLookup: number;
	};
	const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
	console.log(
		`(b) the lists: ${figures.domains[0].toLocaleString('en-US')} free, ${figures.domains[1].toLocaleString('en-US')} disposable and ${figures.domains[2]} relay domains, ${(figures.characters / 1024).toFixed(0)} KiB of text; ` +
			`heap after the module is loaded ${mib(figures.loaded)}, after the first lookup made the map ${mib(figures.used)}; a lookup ${figures.perLookup.toFixed(2)} µs`,
	);
}

export async function run(): Promise<void> {
	console.log('\n## Company Enrichment of a lead list');
	listCost();
	const sandbox = await startSandbox();
	try {
		await leads(sandbox);
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) void run().then(() => process.exit(0));
