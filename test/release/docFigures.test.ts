/**
 * The figures the documentation repeats across pages say the same everywhere, and the same as the
 * thing they describe: a figure a user reads in the README is the one CONTRIBUTING, the CHANGELOG
 * and docs/ give. Each named fact below has the patterns a page states it in (every match on every
 * page is read) and, where the repository holds it, its value from there (package.json, the code,
 * the scripts that install n8n); a fact measured by a benchmark has no source but the benchmark's
 * page, so every page must give the same value. A page that says another value fails, and so does
 * a fact no page states any more (a pattern that matches nothing checks nothing).
 */
import * as fs from 'fs';
import * as path from 'path';

import { ANSWER_TEXTS_HELD } from '../../nodes/AbstractIpLookup/fileLookup';
import { MAX_CSV_ROWS } from '../../nodes/shared/csv/csvParameters';
import { MAX_FIELDS, MAX_RECORD_BYTES } from '../../nodes/shared/csv/csvRecord';
import { FOREIGN_BUILDS } from '../../nodes/shared/ipDatabases/databaseCache';
import {
	DECODED_BYTES,
	OBJECT_BYTES,
	VALUE_BYTES,
} from '../../nodes/shared/ipDatabases/mmdbDecoder';
import { DECODED_RECORD_BYTES } from '../../nodes/shared/ipDatabases/mmdbReader';
import { KEPT_ANSWERS_BUDGET } from '../../nodes/shared/engine/keptAnswers';
import { RETRY_POLICY } from '../../nodes/shared/engine/retry';
import { N8N_1, N8N_2 } from '../../scripts/n8n/runtime';

const root = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	engines: { node: string; n8n: string };
	devDependencies: Record<string, string>;
	n8n: { nodes: string[]; credentials: string[] };
};
/**
 * The packages `npm ci` installs from package-lock.json on a platform, as its "added N packages"
 * counts them: every locked package but those whose `os`, `cpu` or `libc` leave that platform out
 * (the native builds of other systems). The docs give the figure of the Linux x64 machine they
 * were measured on.
 */
function lockedPackagesFor(platform: { os: string; cpu: string; libc: string }): number {
	const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
		packages: Record<string, { os?: string[]; cpu?: string[]; libc?: string[] }>;
	};
	const admits = (list: string[] | undefined, value: string) =>
		!list ||
		(!list.includes(`!${value}`) &&
			(list.includes(value) || list.every((entry) => entry.startsWith('!'))));
	return Object.entries(lock.packages).filter(
		([key, entry]) =>
			key !== '' &&
			admits(entry.os, platform.os) &&
			admits(entry.cpu, platform.cpu) &&
			admits(entry.libc, platform.libc),
	).length;
}
const examples = fs
	.readdirSync(path.join(root, 'examples'))
	.filter((file) => file.endsWith('.json'));

/** The pages a user or contributor reads. */
function pages(): string[] {
	const docs = fs.readdirSync(path.join(root, 'docs')).filter((file) => file.endsWith('.md'));
	return [
		'README.md',
		'CONTRIBUTING.md',
		'CHANGELOG.md',
		...docs.map((file) => path.join('docs', file)),
	];
}

/** A page's text with every run of white space one space, so a phrase wrapped over two lines is found. */
const flat = (file: string) => fs.readFileSync(path.join(root, file), 'utf8').replace(/\s+/g, ' ');

/**
 * A figure as docs/benchmarks.md, where every figure comes from, gives it: the first match of
 * `pattern` on that page, so another page that states the figure otherwise fails.
 */
function benchmarkFigure(pattern: RegExp): string {
	const figure = flat(path.join('docs', 'benchmarks.md')).match(pattern)?.[1];
	if (figure === undefined) throw new Error(`docs/benchmarks.md no longer states ${pattern}`);
	return figure;
}

const NUMBER_WORDS: Record<string, string> = {
	four: '4',
	eleven: '11',
	twelve: '12',
	a_fifth: '20',
	a_quarter: '25',
	a_third: '33',
	half: '50',
};

/** A stated value as a comparable one: number words as digits, thousands separators and "~" dropped. */
function normalized(value: string): string {
	const text = value.trim().toLowerCase();
	return (
		NUMBER_WORDS[text.replace(/ /g, '_')] ??
		text
			.replace(/^~/, '')
			.replace(/,(?=\d{3}\b)/g, '')
			.replace(/\s*%$/, '')
	);
}

interface Fact {
	name: string;
	/** Each match's first defined group is the value it states. */
	patterns: RegExp[];
	/** The value from the repository; none for a measured figure, which the pages must agree on. */
	expected?: string;
	/** A stated value as the fact compares it (default: `normalized`). */
	compare?: (value: string) => string;
}

const FACTS: Fact[] = [
	{
		name: 'the development packages npm ci installs on Linux x64 (package-lock.json)',
		patterns: [/\binstalls (\d[\d,]*) development packages\b/g],
		expected: String(lockedPackagesFor({ os: 'linux', cpu: 'x64', libc: 'glibc' })),
	},
	{
		name: 'the number of nodes (package.json n8n.nodes)',
		patterns: [/\ball (\w+) nodes\b/gi, /\b(\d+) of \d+ node types\b/g],
		expected: String(manifest.n8n.nodes.length),
	},
	{
		name: 'the number of credential types (package.json n8n.credentials)',
		patterns: [/\b(\d+) of \d+ credential types\b/g, /\bthe (\d+) credentials\b/g],
		expected: String(manifest.n8n.credentials.length),
	},
	{
		name: 'the number of examples (examples/*.json)',
		patterns: [
			/\ball (\d+) examples\b/g,
			/\bruns? the (\d+) examples\b/g,
			/\bevery one of the (\d+) examples\b/g,
		],
		expected: String(examples.length),
	},
	{
		name: 'the Node.js floor (package.json engines.node)',
		patterns: [/\bNode(?:\.js)?[\s(]+(\d+(?:\.\d+)*) or later\b/g],
		expected: manifest.engines.node.replace(/^>=\s*/, ''),
	},
	{
		name: 'the oldest n8n that works (package.json engines.n8n)',
		patterns: [
			/\bn8n 1\.x from (\d+\.\d+\.\d+) on\b/g,
			/\b(\d+\.\d+\.\d+) or later 1\.x\b/g,
			/\(1\.x, (\d+\.\d+\.\d+) or later\)/g,
		],
		expected: manifest.engines.n8n.match(/>=\s*(\d+\.\d+\.\d+)/)?.[1],
	},
	{
		name: 'the real n8n of the e2e, dev and bench:n8n (scripts/n8n/runtime.ts)',
		patterns: [/\breal n8n (\d+\.\d+\.\d+)/g, /\bn8n (\d+\.\d+\.\d+) \(Node 24\)/g],
		expected: N8N_2.n8nVersion,
	},
	{
		name: 'the last n8n 1.x the e2e runs (scripts/n8n/runtime.ts)',
		patterns: [/\b(\d+\.\d+\.\d+),? the last 1\.x\b/g, /\bn8n (1\.\d+\.\d+) and Node 22\b/g],
		expected: N8N_1.n8nVersion,
	},
	{
		name: 'the n8n-core that npm test runs the nodes in (package.json devDependencies)',
		patterns: [/\bn8n-core (\d+\.\d+\.\d+)/g],
		expected: manifest.devDependencies['n8n-core'],
	},
	{
		name: 'the row limit of a CSV file (MAX_CSV_ROWS)',
		patterns: [
			/\b(?:at most|up to) (\d[\d,]*) rows\b/g,
			/\btake at most (\d[\d,]*) rows per file\b/g,
		],
		expected: String(MAX_CSV_ROWS),
	},
	{
		name: 'the retry budget per item (RETRY_POLICY.budgetMs)',
		patterns: [
			/\bfor up to (\d+) minutes per item\b/g,
			/\b(\d+)-minute budget per item\b/g,
			/\bretries bounded by a (\d+)-minute\b/g,
		],
		expected: String(RETRY_POLICY.budgetMs / 60_000),
	},
	{
		name: 'the answers kept for a retry (KEPT_ANSWERS_BUDGET)',
		patterns: [
			/\(([\d.]+) MiB at most, an hour at most\b/g,
			/\bat most ([\d.]+) MiB of answers\b/g,
		],
		expected: String(KEPT_ANSWERS_BUDGET / 1024 / 1024),
	},
	{
		name: "the CSV index's share of its file (npm run bench, IP lookups)",
		patterns: [
			/\bCSV index (?:at|is) (~?[\d.]+ ?%|a \w+) of the file\b/g,
			/\bindex itself is (~?[\d.]+ ?%|a \w+) of the file\b/g,
			/\bCSV index's \((~?[\d.]+ ?%) of the file\)/g,
		],
		compare: (value) => String(Math.round(Number(normalized(value)))),
	},
	{
		name: "the CSV parser's speed (npm run bench, The CSV parser)",
		patterns: [
			/\b(\d+ to \d+) MB\/s, [\d.]+ to [\d.]+ times csv-parse/g,
			/\bparses (\d+ to \d+) MB\/s\b/g,
		],
		expected: benchmarkFigure(/\b(\d+ to \d+) MB\/s, [\d.]+ to [\d.]+ times csv-parse/),
	},
	{
		name: 'the CSV parser against csv-parse (npm run bench, The CSV parser)',
		patterns: [/\bMB\/s, ([\d.]+ to [\d.]+) times csv-parse/g],
		expected: benchmarkFigure(/\bMB\/s, ([\d.]+ to [\d.]+) times csv-parse/),
	},
	{
		name: 'two workers on one key at 5/s in real queue mode, the share of the limit while every execution sent (npm run test:e2e -- --queue)',
		patterns: [
			/\b2 workers at 5\/s used ([\d.]+) of the key\b/g,
			/\| 2 workers at 5\/s, 4 executions of 75 items \| [^|]*\| ([\d.]+) of the limit/g,
		],
		expected: benchmarkFigure(
			/\| 2 workers at 5\/s, 4 executions of 75 items \| [^|]*\| ([\d.]+) of the limit/,
		),
	},
	{
		name: 'two workers on one key at 5/s in real queue mode, the share of 429s (npm run test:e2e -- --queue)',
		patterns: [
			/\b2 workers at 5\/s used [\d.]+ of the key with ([\d.]+)%/g,
			/\| 2 workers at 5\/s, 4 executions of 75 items \| \d+, \d+ \(([\d.]+)%\)/g,
		],
		expected: benchmarkFigure(
			/\| 2 workers at 5\/s, 4 executions of 75 items \| \d+, \d+ \(([\d.]+)%\)/,
		),
	},
	{
		name: 'the cells of a CSV row (MAX_FIELDS)',
		patterns: [/\b(?:at most|more than) (\d[\d,]*) cells\b/g],
		expected: String(MAX_FIELDS),
	},
	{
		name: 'the text of a CSV row (MAX_RECORD_BYTES)',
		patterns: [/\b(\d+) MiB of (?:cell )?text\b/g],
		expected: String(MAX_RECORD_BYTES / 1024 / 1024),
	},
	{
		name: 'what an MMDB record or its metadata decodes to (DECODED_BYTES)',
		patterns: [/\bdecodes? to (?:at most|more than) (\d+) KiB\b/g],
		expected: String(DECODED_BYTES / 1024),
	},
	{
		name: "the MMDB decoder's estimate of a value (VALUE_BYTES)",
		patterns: [/\b(\d+) bytes a value\b/g],
		expected: String(VALUE_BYTES),
	},
	...(
		[
			['map', /\b(\d+) bytes more a map\b/g],
			['array', /\bmore a map, (\d+) an array\b/g],
			['bytes', /\b(\d+) a byte array, \d+ a 64-/g],
			['bigInteger', /\b(\d+) a 64- or 128-bit integer\b/g],
		] as const
	).map(([kind, pattern]) => ({
		name: `what the MMDB decoder's estimate adds for V8's object (OBJECT_BYTES.${kind})`,
		patterns: [pattern],
		expected: String(OBJECT_BYTES[kind]),
	})),
	{
		name: "the MMDB reader's record cache (DECODED_RECORD_BYTES)",
		patterns: [/\bbounded at (\d+) MiB of (?:that|the decoder's) estimate\b/g],
		expected: String(DECODED_RECORD_BYTES / 1024 / 1024),
	},
	{
		name: 'the files of other schemas the database cache keeps (FOREIGN_BUILDS)',
		patterns: [/\band (\w+) of those in all\b/g],
		expected: String(FOREIGN_BUILDS),
	},
	{
		name: "the IP lookup memo's answer texts (ANSWER_TEXTS_HELD)",
		patterns: [/\bthe last (\d[\d,]*) distinct addresses\b/g],
		expected: String(ANSWER_TEXTS_HELD.answers),
	},
	{
		name: "the IP lookup memo's characters (ANSWER_TEXTS_HELD)",
		patterns: [/\b(\d+) Mi characters of answers\b/g],
		expected: String(ANSWER_TEXTS_HELD.size / 1024 / 1024),
	},
	{
		name: 'n8n Cloud Starter memory',
		patterns: [/\bStarter \((\d[\d,]*) MiB\)/g],
	},
	{
		name: 'n8n Cloud Pro-1 memory',
		patterns: [
			/\bPro-1 \((\d[\d,]*) MiB\)/g,
			/\bPro-1's (\d[\d,]*) MiB\b/g,
			/\(Pro-1, (\d[\d,]*) MiB\)/g,
		],
	},
	{
		name: 'n8n Cloud Pro-2 memory',
		patterns: [/\bPro-2 \((\d[\d,]*) MiB\)/g],
	},
];

/** Every value a fact's patterns find, with the page it is on. */
function statements(fact: Fact): Array<{ file: string; said: string; value: string }> {
	const compare = fact.compare ?? normalized;
	return pages().flatMap((file) => {
		const text = flat(file);
		return fact.patterns.flatMap((pattern) =>
			[...text.matchAll(pattern)].map((match) => {
				const said = match.slice(1).find((group) => group !== undefined) ?? '';
				return { file, said: match[0], value: compare(said) };
			}),
		);
	});
}

describe('figures repeated across pages', () => {
	it('normalizes number words, separators and percentages', () => {
		expect(['eleven', '12', '50,000', '~7 %', 'a fifth'].map(normalized)).toEqual([
			'11',
			'12',
			'50000',
			'7',
			'20',
		]);
	});

	it.each(FACTS.map((fact) => [fact.name, fact] as const))(
		'%s: every page says the same',
		(_name, fact) => {
			const found = statements(fact);
			expect(found.length).toBeGreaterThan(0);
			const expected = fact.expected ?? found[0].value;
			const disagreeing = found
				.filter((statement) => statement.value !== expected)
				.map((statement) => `${statement.file}: "${statement.said}"`);
			expect({ expected, disagreeing }).toEqual({ expected, disagreeing: [] });
		},
	);
});

describe('the benchmarks page', () => {
	it('lists every one of its sections in its contents', () => {
		const page = fs.readFileSync(path.join(root, 'docs', 'benchmarks.md'), 'utf8');
		const sections = [...page.matchAll(/^## (.+)$/gm)].map((match) => match[1].trim());
		const listed = [...page.matchAll(/^- \[([^\]]+)\]\(#[^)]+\)$/gm)].map((match) => match[1]);
		expect(sections.filter((section) => !listed.includes(section))).toEqual([]);
	});
});

/**
 * Throughput against HTTP Request: benchmarks.md's table gives each run's ratio with its node and
 * form; the prose on both pages gives the range of the table's ratios, for the key typed into
 * HTTP Request's query and for its Query Auth credential, and must be that range.
 */
describe('throughput against HTTP Request', () => {
	const page = fs.readFileSync(path.join(root, 'docs', 'benchmarks.md'), 'utf8');
	const rows = page
		.split('\n')
		.filter(
			(line) =>
				line.startsWith('| IBAN Validation') ||
				line.startsWith('| Email Reputation') ||
				line.startsWith('| (the node'),
		);
	/** The ratios of one column of the table (1: the key in the query, 2: Query Auth), as written, lowest and highest. */
	function rangeOf(column: 1 | 2): string {
		const ratios = rows
			.map((row) => row.split('|')[column + 1]?.match(/([\d.]+)x/)?.[1])
			.filter((ratio): ratio is string => ratio !== undefined)
			.sort((a, b) => Number(a) - Number(b));
		return `${ratios[0]}x to ${ratios[ratios.length - 1]}x`;
	}

	it('reads a table of at least three runs', () => {
		expect(rows.length).toBeGreaterThanOrEqual(3);
	});

	it("states the range of the table's ratios on both pages", () => {
		const query = rangeOf(1);
		const queryAuth = rangeOf(2);
		const benchmarks = flat(path.join('docs', 'benchmarks.md'));
		const pacing = flat(path.join('docs', 'pacing-and-queue-mode.md'));
		expect({
			benchmarksQuery: benchmarks.includes(`between ${query.replace(' to ', ' and ')}`),
			benchmarksQueryAuth: benchmarks.includes(`credential, ${queryAuth} in every run`),
			pacingQuery: pacing.includes(`(${query} the items per second`),
			pacingQueryAuth: pacing.includes(`Query Auth credential, ${queryAuth}.`),
		}).toEqual({
			benchmarksQuery: true,
			benchmarksQueryAuth: true,
			pacingQuery: true,
			pacingQueryAuth: true,
		});
	});
});
