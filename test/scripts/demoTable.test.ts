import {
	ANSWERS_FOLDER,
	exampleFiles,
	preparedExample,
	SANDBOX_NOTE,
	viewOf,
} from '../../scripts/demo';
import {
	cut,
	displayWidth,
	formatTable,
	leaves,
	outputWidth,
	shownValue,
} from '../../scripts/table';
import { createN8nFilesFolder } from '../harness/n8nFiles';
import { runWorkflow, type RunResult, type WorkflowJson } from '../harness/run';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';

/**
 * `npm run demo`'s tables (scripts/table.ts, a pure formatter, and scripts/demo.ts's choice of
 * what to show): every line within the terminal's width, nested answers as their leaves, one
 * form for booleans, long values cut with an ellipsis; then the same over the real outputs of
 * every example, run through n8n-core against the sandbox as the demo runs them.
 */
const within = (text: string, width: number) =>
	text.split('\n').filter((line) => displayWidth(line) > width);

describe('the table formatter', () => {
	const wide = [
		{
			name: 'Ada Lovelace',
			email: 'ada@analytical-engines.com',
			note: 'x'.repeat(300),
			company: 'Analytical Engines, Ltd.',
		},
		{
			name: 'Grace Hopper',
			email: 'grace.hopper@navy-compilers.org',
			note: 'short',
			company: 'Navy Compilers',
		},
	];

	it.each([120, 80, 40, 12])(
		'keeps every line within %i columns, cutting values with an ellipsis',
		(width) => {
			const table = formatTable(wide, { width });
			expect(within(table, width)).toEqual([]);
			expect(table).toContain('…');
			expect(table.split('\n')[0]).toMatch(/^name/);
		},
	);

	it('leaves out the last columns when narrowing is not enough, and names them on a line of their own', () => {
		const row = Object.fromEntries(
			Array.from({ length: 30 }, (_, index) => [`column_${index}`, `value ${index}`]),
		);
		const table = formatTable([row], { width: 60 });
		expect(within(table, 60)).toEqual([]);
		const lines = table.split('\n');
		expect(lines[lines.length - 1]).toMatch(/^\(not shown, no room: column_\d+, /);
		expect(lines[0]).toMatch(/^column_0/);
	});

	it('shows nested answers as their dotted leaves: a row of nested data is not blank', () => {
		const answer = {
			ip_address: '185.220.101.4',
			city: null,
			connection: { autonomous_system_number: null },
			security: { is_tor: true, is_vpn: false },
		};
		expect(leaves(answer)).toEqual({
			ip_address: '185.220.101.4',
			city: null,
			'connection.autonomous_system_number': null,
			'security.is_tor': true,
			'security.is_vpn': false,
		});
		const table = formatTable(
			[leaves({ security: { is_tor: true } }), leaves({ security: { is_tor: false } })],
			{ width: 80 },
		);
		expect(table.split('\n')).toEqual(['security.is_tor', '---------------', 'true', 'false']);
	});

	it('prints every boolean in one form, whether a boolean or the text a CSV file holds', () => {
		expect([true, false, 'TRUE', 'FALSE', 'True', 'False', 'false'].map(shownValue)).toEqual([
			'true',
			'false',
			'true',
			'false',
			'true',
			'false',
			'false',
		]);
		expect(shownValue('Falsehood')).toBe('Falsehood');
		expect(shownValue('line one\r\nline two')).toBe('line one⏎line two');
		expect(shownValue(['a', 'b'])).toBe('a, b');
		expect(shownValue(null)).toBe('');
	});

	it('measures wide characters as a terminal does, so columns stay aligned', () => {
		expect(displayWidth('Li Wei 李伟')).toBe(11);
		expect(cut('Umbrella 株式会社', 12)).toBe('Umbrella 株…');
		const table = formatTable(
			[
				{ name: 'Li Wei 李伟', city: 'Shenzhen' },
				{ name: 'Ada', city: 'London' },
			],
			{ width: 80 },
		).split('\n');
		// The second column starts at the same terminal column on every line.
		const secondColumnAt = (line: string) =>
			displayWidth(line.slice(0, line.lastIndexOf(line.split(/ {2,}/)[1])));
		expect(table.map(secondColumnAt)).toEqual([13, 13, 13, 13]);
	});

	it("takes the terminal's width when it writes to one, else 120", () => {
		expect(outputWidth({ isTTY: true, columns: 93 })).toBe(93);
		expect(outputWidth({ isTTY: false, columns: 93 })).toBe(120);
		expect(outputWidth({})).toBe(120);
	});
});

describe("the demo's tables of every example's real output", () => {
	let sandbox: Sandbox;
	const runs: Array<{ file: string; workflow: WorkflowJson; result: RunResult }> = [];
	beforeAll(async () => {
		sandbox = await startSandbox();
		await createN8nFilesFolder();
		// In the demo's order: the stored-database example reads what an earlier one stored.
		for (const file of await exampleFiles()) {
			const workflow = await preparedExample(file);
			runs.push({
				file,
				workflow,
				result: await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) }),
			});
		}
	}, 180_000);
	afterAll(async () => await sandbox.close());

	it('every example ran', () => {
		expect(runs.length).toBeGreaterThanOrEqual(12);
		expect(
			runs
				.filter((run) => run.result.error)
				.map((run) => `${run.file}: ${run.result.error?.message}`),
		).toEqual([]);
	});

	it.each([120, 80])(
		'at %i columns: every line within the width, every shown value whole, as a table or as cards',
		async (width) => {
			for (const { file, workflow, result } of runs) {
				const view = await viewOf(file, workflow, result, width);
				expect(view.tables.length).toBeGreaterThan(0);
				for (const table of view.tables) {
					const shown = { file, table: table.title };
					expect({
						...shown,
						tooWide: [table.title, ...table.lines].filter((line) => displayWidth(line) > width),
						cut: table.lines.filter((line) => line.includes('…')),
					}).toEqual({ ...shown, tooWide: [], cut: [] });
					const columns = table.columns ?? [
						...new Set(table.data.flatMap((row) => Object.keys(row))),
					];
					// Each row's every shown value is there whole: in its line of the table, or in its card
					// (whose long values continue on the next lines).
					const holders = table.records
						? table.records.map((card) => card.join('\n'))
						: table.lines.slice(2, 2 + table.rows);
					expect({ ...shown, rows: holders.length }).toEqual({ ...shown, rows: table.data.length });
					// A long value may be broken anywhere in a card: compared without white space.
					const flat = (text: string) => text.replace(/\s+/g, '');
					const missing = table.data.flatMap((row, index) =>
						columns
							.filter((column) => shownValue(row[column]) !== '')
							.filter((column) => !flat(holders[index]).includes(flat(shownValue(row[column]))))
							.map((column) => `${index}: ${column}`),
					);
					expect({ ...shown, missing }).toEqual({ ...shown, missing: [] });
					// A card is headed by what it is about, not by a bare count ("5").
					expect({
						...shown,
						bareCounts: (table.records ?? [])
							.map((card) => card[0])
							.filter((heading) => /^\d[\d,]*(?:\.\d+)?$/.test(heading)),
					}).toEqual({ ...shown, bareCounts: [] });
					// A card names each field it shows beside its value.
					for (const [index, card] of (table.records ?? []).entries())
						expect({
							...shown,
							unnamed: columns
								.slice(1)
								.filter((column) => shownValue(table.data[index][column]) !== '')
								.filter((column) => !card.some((line) => line.trim().startsWith(column))),
						}).toEqual({ ...shown, unnamed: [] });
				}
				// The answers file holds each item as the node gave it, nested objects included.
				expect(JSON.parse(JSON.stringify(view.answers))).toEqual(view.answers);
			}
		},
	);

	it("shows the lead enrichment's leads one block each, company fields included, and says the answers are made up", async () => {
		const run = runs.find((each) => each.file === 'lead-enrichment.json')!;
		for (const width of [80, 120]) {
			const [table] = (await viewOf(run.file, run.workflow, run.result, width)).tables;
			expect(table.records?.length).toBe(5);
			const fields = (table.records ?? []).flatMap((block) =>
				block.slice(1).map((line) => line.trim().split(/\s{2,}/)[0]),
			);
			for (const field of ['company', 'industry', 'employees'])
				expect([width, field, fields.includes(field)]).toEqual([width, field, true]);
		}
		expect(SANDBOX_NOTE.join(' ')).toMatch(/sandbox's made-up data/);
		expect(SANDBOX_NOTE.every((line) => displayWidth(line) <= 80)).toBe(true);
	});

	it("shows the three-databases example's connection and security leaves for addresses that have only those", async () => {
		const run = runs.find((each) => each.file === 'ip-lookup-three-databases.json')!;
		const nested = run.result
			.output('IP Database Lookup')
			.filter((item) => item.json.city === null && item.json.security);
		expect(nested.length).toBeGreaterThan(0);
		const [table] = (await viewOf(run.file, run.workflow, run.result, 120)).tables;
		for (const item of nested) {
			const card = table.records!.find((each) => each[0] === String(item.json.ip_address))!;
			expect(card.some((line) => /^\s+security\.is_tor\s+(true|false)$/.test(line))).toBe(true);
		}
		expect(ANSWERS_FOLDER).toMatch(/demo-answers$/);
	});
});
