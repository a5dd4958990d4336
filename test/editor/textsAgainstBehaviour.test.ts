import type { IDataObject, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { hintsOf } from '../harness/hints';
import { packageCredentialTypes, packageNodeTypes } from '../harness/nodeTypes';
import { runNode, type InputItem, type NodeRun } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { csvItem } from '../nodes/csvHelpers';
import { allProperties } from './descriptionRules';

/**
 * What the editor's texts say, held against what the nodes do (a text that says the opposite of
 * the node is worse than none):
 *  - a description or hint that says what an empty value does ("Empty: ...", "Leave empty ...",
 *    "; empty locates ...", "None chosen ...") belongs to a field that starts empty, so a user who
 *    adds it sees what the text speaks of;
 *  - a node that spends no credit (it has no Estimate Credits Only: the databases come with the
 *    organization's licence, or nothing is sent) says of nothing that it costs a credit;
 *  - every hint above a node's output that names one of the node's options says which way to turn
 *    it, asks for the value the run did not have, and does what it promises when followed: the
 *    same items run again with the option turned as told show that hint no more, and send a
 *    request for what went without one, or nothing at all, as the hint says.
 */
const nodes = [...packageNodeTypes().values()].map((type) => type.description);
const credentials = [...packageCredentialTypes().values()];

/** A text that tells what the field does when it is left empty. */
const SAYS_WHAT_EMPTY_DOES = /(?:^|[.;:]\s+)(?:leave (?:it )?empty\b|empty\b|none chosen\b)/i;

const isEmptyDefault = (value: unknown) =>
	value === undefined ||
	value === null ||
	value === '' ||
	(Array.isArray(value) && value.length === 0);

/** A property's texts a user reads beside the field. */
const besideTheField = (property: INodeProperties) =>
	[property.description, property.hint].filter((text): text is string => typeof text === 'string');

describe('what a text says an empty value does', () => {
	const owners = [
		// A node of several versions holds them all in one description (`@version` conditions).
		...nodes.map((description) => ({
			owner: description.displayName,
			properties: allProperties(description.properties),
		})),
		...credentials.map((type) => ({
			owner: type.displayName,
			properties: allProperties(type.properties),
		})),
	];

	it('tells the rule apart from a text about something else that is empty', () => {
		for (const text of [
			'Empty: to the end of the file.',
			'A slice per execution. Empty: every row to the end of the file.',
			'An IPv4 or IPv6 address; empty locates the address n8n runs from',
			'Leave empty for the live service',
			'Top-level keys to return. None chosen returns the whole record.',
		])
			expect([text, SAYS_WHAT_EMPTY_DOES.test(text)]).toEqual([text, true]);
		for (const text of [
			'The CSV file (at most 50,000 rows, no empty rows)',
			'the service answers an empty list',
			'with an empty list when there are none',
		])
			expect([text, SAYS_WHAT_EMPTY_DOES.test(text)]).toEqual([text, false]);
	});

	it('is said only of fields that start empty', () => {
		const said = owners.flatMap(({ owner, properties }) =>
			properties.flatMap((property) =>
				besideTheField(property)
					.filter((text) => SAYS_WHAT_EMPTY_DOES.test(text))
					.map((text) => ({ owner, property, text })),
			),
		);
		expect(said.length).toBeGreaterThanOrEqual(10);
		expect(
			said
				.filter(({ property }) => !isEmptyDefault(property.default))
				.map(
					({ owner, property, text }) =>
						`${owner} › ${property.displayName} starts at ${JSON.stringify(property.default)} but says: "${text}"`,
				),
		).toEqual([]);
	});
});

describe('a node that spends no credit', () => {
	const spendsNoCredit = nodes.filter(
		(description) =>
			!allProperties(description.properties).some((property) => property.name === 'estimateOnly'),
	);

	it('is each node without Estimate Credits Only: the two IP database nodes', () => {
		expect(spendsNoCredit.map((description) => description.displayName).sort()).toEqual([
			'Abstract IP Database Download',
			'Abstract IP Database Lookup',
		]);
	});

	it.each(spendsNoCredit.map((description) => [description.displayName, description] as const))(
		'%s: says of nothing that it costs a credit',
		(_name, description) => {
			const costs = allProperties(description.properties).flatMap((property) =>
				[
					...besideTheField(property),
					...(property.options ?? []).map(
						(option) => (option as { description?: string }).description ?? '',
					),
				]
					.filter((text) => /\bcosts?\b[^.]*\bcredits?\b/i.test(text))
					.map((text) => `${property.displayName}: "${text}"`),
			);
			expect(costs).toEqual([]);
		},
	);
});

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());

/** A run that shows hints naming an option: the node, its items, its options, its sandbox service. */
interface HintCase {
	label: string;
	type: string;
	service: string;
	parameters: IDataObject;
	items: InputItem[];
	options: IDataObject;
	/** Runs before the one that shows the hint, on the same workflow (a test run that pays first). */
	before?: number;
}

const emails = (values: string[]): InputItem[] => values.map((value) => ({ json: { value } }));

/** Email Reputation on these addresses, read by expression; more of the case in `extra`. */
const emailCase = (label: string, values: string[], extra: Partial<HintCase> = {}): HintCase => ({
	label,
	type: 'abstractEmail',
	service: 'email',
	parameters: { email: '={{ $json.value }}' },
	items: emails(values),
	options: {},
	...extra,
});

const CASES: HintCase[] = [
	{
		label: 'Company Enrichment, a lead at a webmail address',
		type: 'abstractCompany',
		service: 'company',
		parameters: { domain: '={{ $json.value }}' },
		items: emails(['ada@gmail.com', 'grace@navy-compilers.org']),
		options: {},
	},
	emailCase('Email Reputation, an address twice', ['ada@example.com', 'ada@example.com']),
	emailCase('Email Reputation, a second test run', ['grace@example.com'], { before: 1 }),
	emailCase('Email Reputation, an estimate', ['alan@example.com'], {
		options: { estimateOnly: true },
	}),
	emailCase('Email Reputation, a file of 1,001 rows', [], {
		parameters: { input: 'csvFile', emailColumn: 'email' },
		items: [csvItem(`email\n${'edsger@example.com\n'.repeat(1001)}`)],
	}),
];

/** "turn X off in Options", "Turn on X in Options": the option and the value asked for. */
const INSTRUCTION = /\bturn (?:(on|off) )?([A-Z][\w ]*?[\w)])(?: (on|off))? in Options\b/i;

/** What following a hint promises, by its words, as requests the run sends. */
const PROMISES: Array<{ says: RegExp; sends: 'more' | 'none' }> = [
	{ says: /to look them up|for a fresh answer each|to ask afresh|to run it\b/, sends: 'more' },
	{ says: /sends none/, sends: 'none' },
];

interface Hinted {
	hint: string;
	option?: INodeProperties;
	turnTo?: boolean;
	promise?: (typeof PROMISES)[number];
}

/** The options of the node's Options collections (every version's). */
function optionsOf(type: string): INodeProperties[] {
	const description = nodes.find((each) => each.name === type)!;
	return description.properties
		.filter((property) => property.name === 'options' && property.type === 'collection')
		.flatMap((collection) => collection.options as INodeProperties[]);
}

/** What a hint asks, read by its words: the option it names, which way, and what it promises. */
function readHint(hint: string, options: INodeProperties[]): Hinted {
	const named = options.find((option) => hint.includes(option.displayName));
	const instruction = INSTRUCTION.exec(hint);
	const way = instruction?.[1] ?? instruction?.[3];
	return {
		hint,
		option: named && instruction?.[2] === named.displayName ? named : undefined,
		turnTo: way === undefined ? undefined : way.toLowerCase() === 'on',
		promise: PROMISES.find((promise) => promise.says.test(hint)),
	};
}

describe('hints above the output that name an option', () => {
	const run = async (spec: HintCase, options: IDataObject, workflowId: string) => {
		sandbox.reset();
		const result = await runNode({
			type: spec.type,
			parameters: { ...spec.parameters, options },
			credential: sandboxCredential(sandbox, spec.service),
			items: spec.items,
			workflowId,
		} satisfies NodeRun);
		return { result, requests: sandbox.requests(spec.service).length };
	};

	it('reads which way a hint turns an option, and what it promises', () => {
		const options = optionsOf('abstractCompany');
		expect(
			readHint(
				'1 email address was skipped at no credit (turn Skip Webmail Addresses off in Options to look them up)',
				options,
			),
		).toMatchObject({ option: { name: 'skipWebmail' }, turnTo: false });
		// The words a hint once said: the option named, but not which way to turn it.
		expect(
			readHint(
				'1 email address was skipped (Skip Webmail Addresses in Options looks them up)',
				options,
			),
		).toMatchObject({ option: undefined, turnTo: undefined, promise: undefined });
	});

	it.each(CASES.map((spec) => [spec.label, spec] as const))(
		'%s: each such hint names the way to turn the option, and following it does what it says',
		async (_label, spec) => {
			const workflowId = `hints-${spec.label}`;
			for (let index = 0; index < (spec.before ?? 0); index++)
				await run(spec, spec.options, workflowId);
			const first = await run(spec, spec.options, workflowId);
			expect(first.result.error).toBeUndefined();
			const options = optionsOf(spec.type);
			const hinted = hintsOf(first.result)
				.filter(
					(hint) =>
						/\bin Options\b/.test(hint) ||
						options.some((option) => hint.includes(option.displayName)),
				)
				.map((hint) => readHint(hint, options));
			expect(hinted.length).toBeGreaterThan(0);
			for (const { hint, option, turnTo, promise } of hinted) {
				expect({
					hint,
					readable: option !== undefined && turnTo !== undefined && promise !== undefined,
				}).toEqual({
					hint,
					readable: true,
				});
				const now = spec.options[option!.name] ?? option!.default;
				// A hint asks for a change: the value the run did not have.
				expect({ hint, now }).toEqual({ hint, now: !turnTo });
				// The same workflow only for a hint about its earlier runs: elsewhere, the answers the
				// first run kept for later test runs would answer what following the hint sends.
				const followed = await run(
					spec,
					{ ...spec.options, [option!.name]: turnTo },
					spec.before ? workflowId : `${workflowId}-followed`,
				);
				expect(followed.result.error).toBeUndefined();
				const instruction = INSTRUCTION.exec(hint)![0];
				expect({
					hint,
					stillSaid: hintsOf(followed.result).some((each) => each.includes(instruction)),
					sends:
						promise!.sends === 'none'
							? followed.requests === 0
							: followed.requests > first.requests,
				}).toEqual({ hint, stillSaid: false, sends: true });
			}
		},
		60_000,
	);
});
