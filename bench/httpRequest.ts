import { promises as fs } from 'fs';
import path from 'path';

import { startSandbox, type Sandbox } from '../test/sandbox/server';
import {
	importIntoN8n,
	MANUAL_TRIGGER,
	type Workflow,
	type WorkflowNode,
} from '../scripts/n8n/examples';
import { n8nCommand } from '../scripts/n8n/instance';
import { assertSucceeded } from '../scripts/n8n/processes';
import { environmentFor, prepare } from '../scripts/n8n/setup';
import { PACKAGE_CODE, profileShares, type FrameGroup } from './cpuProfileShares';

/**
 * Throughput, pacing off, in a real n8n (2.41.1, the one `npm run test:e2e` installs into its
 * cache; this script installs it too when it is missing): the IBAN node against n8n's own
 * HTTP Request node on the same 300 items, against the same sandbox, each run with
 * `n8n execute`. Items per second come from the Target node's execution time in n8n's run
 * data (its start to its last answer), so n8n's start-up is not counted. HTTP Request runs twice: with the key typed into
 * its query (no credential work at all) and with a Query Auth credential. The Email node too, in
 * two of its Send As forms (Query String, Bearer Header and JSON Body), against HTTP Request with
 * the key typed into its query: the form changes the ratio. 5 rounds (BENCH_ROUNDS), each running
 * every workflow once, in reverse order every other round (a machine growing busier within a round
 * then weighs on neither side); each figure is the median of the rounds' ratios, with the middle
 * half of them beside it (a round's runs are seconds apart, so a busy machine weighs on both sides
 * of a ratio alike, where it shifts whole rounds). 300 items (BENCH_ITEMS): on a shared machine a
 * run of a few hundred items lasts well under a second, and single rounds swing by 0.2 either
 * way; more items per run narrow the middle half.
 *
 * BENCH_CPU_PROF=1 then runs each email workflow once more under a V8 CPU profile and prints
 * where its time went (cpuProfileShares.ts); those runs count in no ratio.
 *
 * Not part of `npm run bench` (it needs the cached n8n and a few minutes):
 * `npm run build && npm run build:tools && node .out/bench/httpRequest.js`.
 */
const COUNT = Number(process.env.BENCH_ITEMS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 5721);

/** The looked-up values of a run: IBANs, or with `field` emails, addresses. */
const valuesOf = (field: string, count: number) =>
	Array.from({ length: count }, (_, index) =>
		field === 'emails' ? `lead${index}@example.com` : `DE89370400440532013000-${index}`,
	);

function workflow(id: string, target: WorkflowNode, count = COUNT, field = 'ibans'): Workflow {
	const values = valuesOf(field, count);
	return {
		id,
		name: id,
		nodes: [
			{ name: 'Start', type: MANUAL_TRIGGER, typeVersion: 1, position: [0, 0], parameters: {} },
			{
				name: 'Items',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [200, 0],
				parameters: { mode: 'raw', jsonOutput: JSON.stringify({ [field]: values }) },
			},
			{
				name: 'Split',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [400, 0],
				parameters: { fieldToSplitOut: field },
			},
			{ ...target, name: 'Target', position: [600, 0] },
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Split', type: 'main', index: 0 }]] },
			Split: { main: [[{ node: 'Target', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/**
 * Pacing, in the same n8n: the node at R/s against HTTP Request with Batching (1 item per
 * batch, interval 1000/R ms, the hand-made way to pace it), the sandbox limited to R/s.
 * Accepted requests per second over R, and 429s, from the sandbox's log.
 */
async function pacingAgainstBatching(
	prepared: Awaited<ReturnType<typeof prepare>>,
	env: NodeJS.ProcessEnv,
	sandbox: Sandbox,
) {
	const url = `${sandbox.baseUrls.iban}/v1/`;
	const cases = [
		[1, 11],
		[5, 51],
	] as const;
	const credentials = cases.map(([rate]) => ({
		id: `bench-iban-${rate}`,
		name: `IBAN (sandbox, ${rate}/s)`,
		type: 'abstractIbanApi',
		data: { apiKey: sandbox.keys.iban, baseUrl: sandbox.baseUrls.iban, requestsPerSecond: rate },
	}));
	const file = path.join(prepared.workFolder, 'paced.json');
	await fs.writeFile(file, JSON.stringify(credentials));
	assertSucceeded(
		await n8nCommand(prepared.runtime, env, ['import:credentials', `--input=${file}`]),
		'n8n import:credentials',
	);
	await fs.rm(file);
	const workflows: Workflow[] = [];
	for (const [rate, count] of cases) {
		workflows.push(
			workflow(
				`benchPacedNode${rate}`,
				{
					name: 'Target',
					type: `${prepared.manifest.name}.abstractIban`,
					typeVersion: 1,
					position: [0, 0],
					parameters: { iban: '={{ $json.ibans }}' },
					credentials: {
						abstractIbanApi: { id: `bench-iban-${rate}`, name: `IBAN (sandbox, ${rate}/s)` },
					},
				},
				count,
			),
			workflow(
				`benchPacedHttp${rate}`,
				{
					name: 'Target',
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.2,
					position: [0, 0],
					parameters: {
						url,
						sendQuery: true,
						queryParameters: {
							parameters: [
								{ name: 'iban', value: '={{ $json.ibans }}' },
								{ name: 'api_key', value: sandbox.keys.iban },
							],
						},
						options: { batching: { batch: { batchSize: 1, batchInterval: 1000 / rate } } },
					},
				},
				count,
			),
		);
	}
	const folder = path.join(prepared.workFolder, 'paced-workflows.json');
	await fs.writeFile(folder, JSON.stringify(workflows));
	assertSucceeded(
		await n8nCommand(prepared.runtime, env, ['import:workflow', `--input=${folder}`]),
		'n8n import:workflow',
	);
	await fs.rm(folder);

	console.log(
		'\n## Pacing in n8n 2.41.1: the node against HTTP Request with Batching (1 per batch, 1000/R ms), sandbox limited to R/s',
	);
	for (const [rate, count] of cases) {
		const line: string[] = [];
		for (const [label, id] of [
			['node', `benchPacedNode${rate}`],
			['HTTP Request Batching', `benchPacedHttp${rate}`],
		]) {
			sandbox.reset();
			sandbox.limitRate('iban', rate);
			const result = await n8nCommand(prepared.runtime, env, ['execute', `--id=${id}`]);
			const log = sandbox.requests('iban');
			const accepted = log.filter((entry) => entry.status === 200);
			const achieved =
				(accepted.length - 1) / ((accepted[accepted.length - 1].at - accepted[0].at) / 1000);
			line.push(
				`${label} ${(achieved / rate).toFixed(3)} of R, ${log.length - accepted.length} 429s${result.code === 0 ? '' : ` (exit ${result.code})`}`,
			);
		}
		console.log(`    ${rate}/s, ${count} items: ${line.join('; ')}`);
	}
}

/** What the profiled runs are divided into (a sample may count in several: they nest). */
const PROFILE_GROUPS: FrameGroup[] = [
	{
		label: 'n8n resolving parameters',
		matches: (frame) => frame.functionName === '_getNodeParameter',
	},
	{ label: 'of which expressions', matches: (frame) => frame.functionName === 'renderExpression' },
	{
		label: 'of which the rest (plain values)',
		matches: (frame) => frame.functionName === '_getNodeParameter',
		// The expression's side: its data proxy, then n8n-workflow's Expression resolving it.
		unless: (frame) =>
			frame.functionName === 'WorkflowDataProxy' ||
			frame.functionName === 'getDataProxy' ||
			(frame.functionName === 'resolveSimpleParameterValue' &&
				frame.url.endsWith('/expression.js')),
	},
	{ label: 'axios', matches: (frame) => frame.url.includes('/axios/') },
	{
		label: 'connecting sockets',
		matches: (frame) =>
			frame.functionName === 'createConnection' && frame.url === 'node:_http_agent',
	},
	{ label: "the package's own frames", matches: PACKAGE_CODE, self: true },
	{
		label: 'garbage collection',
		matches: (frame) => frame.functionName === '(garbage collector)',
		self: true,
	},
	{ label: 'idle', matches: (frame) => frame.functionName === '(idle)', self: true },
];

async function main() {
	const log = (line: string) => console.log(line);
	const prepared = await prepare('bench-http', log);
	// A sandbox that cannot start (its port taken) leaves no work folder behind either.
	const sandbox: Sandbox = await startSandbox({ port: SANDBOX_PORT }).catch(async (error) => {
		await fs.rm(prepared.workFolder, { recursive: true, force: true });
		throw error;
	});
	try {
		const env = await environmentFor(prepared, 5731);
		const url = `${sandbox.baseUrls.iban}/v1/`;
		const emailNode = (sendAs: string): WorkflowNode => ({
			name: 'Target',
			type: `${prepared.manifest.name}.abstractEmail`,
			typeVersion: 1,
			position: [0, 0],
			parameters: { email: '={{ $json.emails }}', options: { sendAs } },
			credentials: {
				abstractEmailApi: { id: 'sandbox-abstractEmailApi', name: 'Email (sandbox)' },
			},
		});
		const http = (
			parameters: Record<string, unknown>,
			credentials?: WorkflowNode['credentials'],
		): WorkflowNode => ({
			name: 'Target',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [0, 0],
			parameters: {
				url,
				sendQuery: true,
				queryParameters: { parameters: [{ name: 'iban', value: '={{ $json.ibans }}' }] },
				options: {},
				...parameters,
			},
			...(credentials ? { credentials } : {}),
		});
		const workflows = {
			node: workflow('benchIbanNode', {
				name: 'Target',
				type: `${prepared.manifest.name}.abstractIban`,
				typeVersion: 1,
				position: [0, 0],
				parameters: { iban: '={{ $json.ibans }}' },
				credentials: { abstractIbanApi: { id: 'sandbox-abstractIbanApi', name: 'IBAN (sandbox)' } },
			}),
			keyInUrl: workflow(
				'benchHttpKeyInUrl',
				http({
					queryParameters: {
						parameters: [
							{ name: 'iban', value: '={{ $json.ibans }}' },
							{ name: 'api_key', value: sandbox.keys.iban },
						],
					},
				}),
			),
			queryAuth: workflow(
				'benchHttpQueryAuth',
				http(
					{ authentication: 'genericCredentialType', genericAuthType: 'httpQueryAuth' },
					{ httpQueryAuth: { id: 'benchQueryAuth', name: 'IBAN key (query)' } },
				),
			),
			emailQuery: workflow('benchEmailQuery', emailNode('query'), COUNT, 'emails'),
			emailBearer: workflow('benchEmailBearer', emailNode('bearerJson'), COUNT, 'emails'),
			emailKeyInUrl: workflow(
				'benchHttpEmailKeyInUrl',
				http({
					url: `${sandbox.baseUrls.email}/v1/`,
					queryParameters: {
						parameters: [
							{ name: 'email', value: '={{ $json.emails }}' },
							{ name: 'api_key', value: sandbox.keys.email },
						],
					},
				}),
				COUNT,
				'emails',
			),
		};
		const serviceOf = (name: keyof typeof workflows) =>
			name.startsWith('email') ? 'email' : 'iban';
		await importIntoN8n(prepared.runtime, env, sandbox, Object.values(workflows), {
			requestsPerSecond: 0,
		});
		const extra = path.join(prepared.workFolder, 'queryAuth.json');
		await fs.writeFile(
			extra,
			JSON.stringify([
				{
					id: 'benchQueryAuth',
					name: 'IBAN key (query)',
					type: 'httpQueryAuth',
					data: { name: 'api_key', value: sandbox.keys.iban },
				},
			]),
		);
		assertSucceeded(
			await n8nCommand(prepared.runtime, env, ['import:credentials', `--input=${extra}`]),
			'n8n import:credentials',
		);
		await fs.rm(extra);

		const rates: Record<keyof typeof workflows, number[]> = {
			node: [],
			keyInUrl: [],
			queryAuth: [],
			emailQuery: [],
			emailBearer: [],
			emailKeyInUrl: [],
		};
		const once = async (name: keyof typeof workflows, profileFolder?: string) => {
			sandbox.reset();
			const runEnv = profileFolder
				? { ...env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileFolder}` }
				: env;
			const result = await n8nCommand(prepared.runtime, runEnv, [
				'execute',
				`--id=${workflows[name].id}`,
				'--rawOutput',
			]);
			const ok = sandbox.requests(serviceOf(name)).filter((entry) => entry.status === 200).length;
			if (result.code !== 0 || ok !== COUNT)
				throw new Error(
					`${name}: exit ${result.code}, ${ok} of ${COUNT} answered\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`,
				);
			// The Target node's own execution time in n8n's run data: from its start to its last answer.
			// (n8n may print log lines after the JSON, so the one number is read, not the whole.)
			const runData = result.stdout.slice(result.stdout.indexOf('"runData"'));
			const milliseconds = Number(
				/"Target":\s*\[\s*\{[^]*?"executionTime":\s*(\d+)/.exec(runData)?.[1],
			);
			if (!milliseconds)
				throw new Error(`${name}: no execution time of the Target node in n8n's output`);
			return COUNT / (milliseconds / 1000);
		};
		console.log(
			`\n## Throughput in n8n ${'2.41.1'}: ${COUNT} items, pacing off, ${ROUNDS} alternating rounds (items/s over the node's execution time in n8n's run data)`,
		);
		await once('node'); // warm-up of the cache files
		await once('emailQuery');
		for (let round = 1; round <= ROUNDS; round++) {
			const names = Object.keys(rates) as Array<keyof typeof workflows>;
			for (const name of round % 2 === 0 ? names.reverse() : names)
				rates[name].push(await once(name));
			console.log(
				`    round ${round}: node ${rates.node[round - 1].toFixed(0)}/s, HTTP Request key in URL ${rates.keyInUrl[round - 1].toFixed(0)}/s, HTTP Request Query Auth ${rates.queryAuth[round - 1].toFixed(0)}/s; Email Query String ${rates.emailQuery[round - 1].toFixed(0)}/s, Email Bearer ${rates.emailBearer[round - 1].toFixed(0)}/s, HTTP Request email key in URL ${rates.emailKeyInUrl[round - 1].toFixed(0)}/s`,
			);
		}
		/** The value at fraction `at` of the sorted values (a half: the median). */
		const quantile = (values: number[], at: number) =>
			[...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * at + 0.5)];
		const median = (values: number[]) => quantile(values, 0.5);
		/** The median of the rounds' ratios, and the middle half of them (the 25th to 75th percentile). */
		const ratio = (name: keyof typeof rates, against: keyof typeof rates) => {
			const ratios = rates[name].map((rate, round) => rate / rates[against][round]);
			const [low, middle, high] = [0.25, 0.5, 0.75].map((at) => quantile(ratios, at).toFixed(2));
			return `${middle}x (middle half ${low}-${high}x)`;
		};
		console.log(
			`    median of the rounds' ratios: IBAN node ${ratio('node', 'keyInUrl')} HTTP Request with the key in its URL, ${ratio('node', 'queryAuth')} HTTP Request with Query Auth`,
		);
		console.log(
			`    median of the rounds' ratios: Email Query String ${ratio('emailQuery', 'emailKeyInUrl')}, Email Bearer ${ratio('emailBearer', 'emailKeyInUrl')} HTTP Request with the key in its URL (email, median ${median(rates.emailKeyInUrl).toFixed(0)}/s)`,
		);

		if (process.env.BENCH_CPU_PROF) {
			console.log(
				`\n## Where the time of ${COUNT} email items goes (one profiled run each, shares of the samples inside the node's execution)`,
			);
			for (const name of ['emailQuery', 'emailBearer', 'emailKeyInUrl'] as const) {
				const folder = path.join(prepared.workFolder, 'profiles', name);
				await once(name, folder);
				const [file] = await fs.readdir(folder);
				const { milliseconds, shares } = await profileShares(
					path.join(folder, file),
					name === 'emailKeyInUrl'
						? (frame) => frame.url.includes('/HttpRequest/V3/')
						: (frame) => frame.functionName === 'runService' && PACKAGE_CODE(frame),
					PROFILE_GROUPS,
				);
				const line = [...shares].map(([label, share]) => `${label} ${(share * 100).toFixed(0)}%`);
				console.log(`    ${name} (${milliseconds.toFixed(0)} ms): ${line.join(', ')}`);
			}
		}

		await pacingAgainstBatching(prepared, env, sandbox);
	} finally {
		await sandbox.close();
		await fs.rm(prepared.workFolder, { recursive: true, force: true });
	}
}

main().then(
	() => process.exit(0),
	(error: Error) => {
		console.error(error.stack ?? error.message);
		process.exit(1);
	},
);
