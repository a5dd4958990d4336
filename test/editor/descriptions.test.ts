import { NodeHelpers } from 'n8n-workflow';
import type {
	IDataObject,
	INode,
	INodeParameters,
	INodeProperties,
	INodeTypeDescription,
} from 'n8n-workflow';

import { packageCredentialTypes, packageNodeTypes } from '../harness/nodeTypes';
import { runNode, type InputItem } from '../harness/run';
import { CREDENTIAL_TYPES, sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { csvItem, FILE_NODES } from '../nodes/csvHelpers';
import { picture } from '../nodes/mediaHelpers';
import {
	allProperties,
	branches,
	BRITISH,
	canBeEmpty,
	CREDENTIAL_LABELS,
	emptyValueOf,
	isCountryPicker,
	isEmptyValue,
	MAX_OPTION_DESCRIPTION,
	SHARED_LABELS,
	textsOf,
} from './descriptionRules';

/**
 * Every node's and credential's description as n8n loads it (from dist/, through package.json's
 * `n8n` section), checked for what a user meets in the editor. The rules about values are not a
 * hand list: each node is run through n8n-core against the sandbox, so "required" means "the
 * node rejects it empty" and "a valid default" means "the node accepts it".
 */
const nodes = [...packageNodeTypes().values()].map((type) => type.description);
const credentials = [...packageCredentialTypes().values()];
const SERVICE_OF = Object.fromEntries(
	Object.entries(CREDENTIAL_TYPES).map(([service, type]) => [type, service]),
);

/** A valid value for each field that starts empty and must be filled: what a user types first. */
const SAMPLES: Record<string, unknown> = {
	phone: '+14152007986',
	email: 'ada@example.com',
	domain: 'example.com',
	country: { __rl: true, mode: 'list', value: 'US' },
	countryCode: { __rl: true, mode: 'list', value: 'DE' },
	vatNumber: 'SE556656688001',
	iban: 'DE89 3704 0044 0532 0130 00',
	name: 'Ada Lovelace',
	'abstractImages.url': 'https://cdn.example.com/team.png',
	'abstractScreenshot.url': 'https://example.com',
};

/** Options the node checks together with others: each is tried with the ones it needs. */
const NEEDS: Record<string, IDataObject> = {
	'abstractHolidays.day': { month: 1, year: '2025' },
	'abstractHolidays.month': { year: '2025' },
};

/** Nodes whose checks below need a credential and the sandbox; one without (a local lookup) is not run. */
const runnable = nodes.filter((description) => (description.credentials ?? []).length > 0);

const ITEM: InputItem = {
	json: {},
	binary: { data: { bytes: picture('png', 40, 30), mimeType: 'image/png', fileName: 'in.png' } },
};

/** With Input: CSV File, the item holds what that layout reads: a CSV of one row under the column the node looks for by default. */
const CSV_ITEMS: Record<string, InputItem> = {
	abstractPhone: csvItem('phone\n+14152007986\n'),
	...Object.fromEntries(
		FILE_NODES.map((node) => [node.type, csvItem(`${node.header}\n${node.value(0)}\n`)]),
	),
};

const itemFor = (description: INodeTypeDescription, parameters: IDataObject) =>
	(parameters.input === 'csvFile' && CSV_ITEMS[description.name]) || ITEM;

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());

const serviceOf = (description: INodeTypeDescription) =>
	SERVICE_OF[description.credentials![0].name];
const sampleFor = (node: string, name: string) => SAMPLES[`${node}.${name}`] ?? SAMPLES[name];

/** Every version of a node: a saved workflow may hold any of them, a new node gets the latest. */
const versionsOf = (description: INodeTypeDescription) =>
	Array.isArray(description.version) ? description.version : [description.version];

/** The top-level parameters the editor shows for these values, in this version of the node. */
function shown(
	description: INodeTypeDescription,
	values: IDataObject,
	typeVersion: number,
): INodeProperties[] {
	const node = { typeVersion } as INode;
	// The tests build parameter sets as JSON; n8n's helpers type them as parameter values.
	const resolved =
		NodeHelpers.getNodeParameters(
			description.properties,
			values as INodeParameters,
			true,
			false,
			node,
			description,
		) ?? {};
	return description.properties.filter(
		(property) =>
			property.name in resolved &&
			NodeHelpers.displayParameter(resolved, property, node, description),
	);
}

/** The values of one layout: its switches, the defaults, and a sample for each field that starts empty. */
function filledIn(
	description: INodeTypeDescription,
	branch: IDataObject,
	typeVersion: number,
): IDataObject {
	const values: IDataObject = { ...branch };
	for (const property of shown(description, branch, typeVersion)) {
		if (canBeEmpty(property) && isEmptyValue(property.default)) {
			const sample = sampleFor(description.name, property.name);
			if (sample !== undefined) values[property.name] = sample as IDataObject[string];
		}
	}
	return values;
}

interface Outcome {
	/** n8n refused to start: a required parameter is empty (its own check of `required: true`). */
	n8nRefused: boolean;
	/** The node's error, if it failed. */
	message?: string;
	requests: number;
}

async function run(
	description: INodeTypeDescription,
	parameters: IDataObject,
	typeVersion: number,
): Promise<Outcome> {
	const service = serviceOf(description);
	sandbox.reset();
	try {
		const { error } = await runNode({
			type: description.name,
			parameters,
			credential: sandboxCredential(sandbox, service),
			items: [itemFor(description, parameters)],
			typeVersion,
		});
		return {
			n8nRefused: false,
			message: error?.message,
			requests: sandbox.requests(service).length,
		};
	} catch (error) {
		if (
			(error as Error).name === 'WorkflowHasIssuesError' ||
			/workflow has issues/i.test((error as Error).message)
		) {
			return { n8nRefused: true, requests: 0 };
		}
		throw error;
	}
}

describe('what the editor shows: names and texts', () => {
	it('loads every node and credential of package.json', () => {
		expect(nodes.length).toBeGreaterThanOrEqual(11);
		expect(credentials).toHaveLength(11);
	});

	it.each(nodes.map((description) => [description.displayName, description] as const))(
		'%s: one name scheme (node "Abstract <canvas name>", credential "Abstract <service> API")',
		(_name, description) => {
			expect(description.displayName).toBe(`Abstract ${description.defaults.name}`);
			for (const { name } of description.credentials ?? []) {
				const credential = credentials.find((type) => type.name === name)!;
				expect(credential.displayName).toMatch(/^Abstract .+ API$/);
				const service = credential.displayName.replace(/ API$/, '');
				expect(`${description.displayName} `.startsWith(`${service} `)).toBe(true);
			}
		},
	);

	it.each(nodes.map((description) => [description.displayName, description] as const))(
		"%s: shared parameters under n8n's labels, short option descriptions, US English",
		(_name, description) => {
			const problems: string[] = [];
			for (const property of allProperties(description.properties)) {
				const labels = SHARED_LABELS[property.name];
				if (labels && !labels.includes(property.displayName)) {
					problems.push(
						`${property.name} is labelled "${property.displayName}", not ${labels.map((label) => `"${label}"`).join(' or ')}`,
					);
				}
				if (property.displayName === 'Put Output File in Field' && !property.hint) {
					problems.push('"Put Output File in Field" has no hint');
				}
				if (isCountryPicker(property) && property.displayName !== 'Country') {
					problems.push(
						`the country picker ${property.name} is labelled "${property.displayName}", not "Country"`,
					);
				}
				for (const option of property.options ?? []) {
					const text = (option as { description?: string }).description ?? '';
					if ('value' in option && text.length > MAX_OPTION_DESCRIPTION) {
						problems.push(
							`${property.displayName} › ${option.name}: description of ${text.length} characters, the dropdown shows ${MAX_OPTION_DESCRIPTION}`,
						);
					}
				}
				for (const text of textsOf(property)) {
					if (BRITISH.test(text))
						problems.push(`${property.displayName}: British spelling in "${text}"`);
				}
				// The hint shows under the field; a description only on hover.
				if (property.required && !property.hint) {
					problems.push(`${property.displayName} is required but has no hint with its rule`);
				}
			}
			expect(problems).toEqual([]);
		},
	);

	// n8n's lint rule (node-param-collection-type-unsorted-items) reads only options written out in
	// the collection, not shared ones like Send Repeated Values Once; the Add Option list shows them
	// in this order, so every collection is held to it, short ones too.
	it.each(nodes.map((description) => [description.displayName, description] as const))(
		'%s: every collection lists its options alphabetically, as the Add Option list shows them',
		(_name, description) => {
			const unsorted: string[] = [];
			for (const property of allProperties(description.properties)) {
				if (property.type !== 'collection') continue;
				const names = (property.options as INodeProperties[]).map((option) => option.displayName);
				const sorted = [...names].sort((a, b) => a.localeCompare(b));
				if (names.join('|') !== sorted.join('|'))
					unsorted.push(`${property.displayName}: ${names.join(', ')}`);
			}
			expect(unsorted).toEqual([]);
		},
	);

	it.each(credentials.map((type) => [type.displayName, type] as const))(
		'%s: labelled fields with hints, optional Base URL, whole-number rate',
		(_name, type) => {
			for (const property of type.properties) {
				expect(property.displayName).toBe(CREDENTIAL_LABELS[property.name]);
				expect(property.hint).toEqual(expect.any(String));
				for (const text of textsOf(property)) expect(text).not.toMatch(BRITISH);
			}
			const baseUrl = type.properties.find((property) => property.name === 'baseUrl')!;
			expect(baseUrl.required).toBeFalsy();
			expect(baseUrl.default).toBe('');
			const rate = type.properties.find((property) => property.name === 'requestsPerSecond');
			if (rate) expect(rate.typeOptions).toMatchObject({ minValue: 0, numberPrecision: 0 });
			expect(String(type.icon && (type.icon as { light: string }).light)).toMatch(
				/^file:\.\.\/nodes\/\w+\/\w+\.svg$/,
			);
		},
	);
});

describe('what the editor shows: required values and defaults, as the nodes check them', () => {
	/** Each layout in each version: a node of several versions is checked as every one of them. */
	const versioned = runnable.flatMap((description) =>
		versionsOf(description).map((typeVersion) => {
			const label =
				versionsOf(description).length > 1
					? `${description.displayName} v${typeVersion}`
					: description.displayName;
			return { description, typeVersion, label };
		}),
	);
	/** The layouts of one version: a switch the version does not show (Download Result in v1) adds none. */
	function layoutsOf(description: INodeTypeDescription, typeVersion: number): IDataObject[] {
		const unique = new Map<string, IDataObject>();
		for (const branch of branches(description)) {
			const names = shown(description, branch, typeVersion).map((property) => property.name);
			const layout = Object.fromEntries(
				Object.entries(branch).filter(([name]) => names.includes(name)),
			);
			unique.set(JSON.stringify(layout), layout);
		}
		return [...unique.values()];
	}
	const layouts = versioned.flatMap(({ description, typeVersion, label }) =>
		layoutsOf(description, typeVersion).map(
			(branch) => [`${label} ${JSON.stringify(branch)}`, description, branch, typeVersion] as const,
		),
	);

	it.each(layouts)(
		'%s: the defaults and the first values a user types are accepted',
		async (_name, description, branch, typeVersion) => {
			const outcome = await run(
				description,
				filledIn(description, branch, typeVersion),
				typeVersion,
			);
			expect(outcome).toMatchObject({ n8nRefused: false, message: undefined });
		},
	);

	/** Each field once per version, in the first layout that shows it. */
	const fields = versioned.flatMap(({ description, typeVersion, label }) => {
		const seen = new Set<INodeProperties>();
		return layoutsOf(description, typeVersion).flatMap((branch) =>
			shown(description, branch, typeVersion)
				.filter((property) => canBeEmpty(property) && !seen.has(property) && seen.add(property))
				.map(
					(property) =>
						[
							`${label} › ${property.displayName} (${property.name})`,
							description,
							branch,
							property,
							typeVersion,
						] as const,
				),
		);
	});

	it.each(fields)(
		'%s: marked required exactly when the node rejects it empty',
		async (_name, description, branch, property, typeVersion) => {
			const outcome = await run(
				description,
				{
					...filledIn(description, branch, typeVersion),
					[property.name]: emptyValueOf(property) as IDataObject[string],
				},
				typeVersion,
			);
			if (outcome.n8nRefused) {
				// n8n refuses an empty required field before the node runs: required: true is set.
				expect(property.required).toBe(true);
				return;
			}
			const rejected = outcome.message?.includes(`(${property.name})`) ?? false;
			if (rejected) expect(outcome.requests).toBe(0);
			expect({
				field: property.name,
				rejectedEmpty: rejected,
				required: property.required === true,
			}).toEqual({
				field: property.name,
				rejectedEmpty: rejected,
				required: rejected,
			});
		},
	);

	const options = versioned.flatMap(({ description, typeVersion, label }) => {
		const isOptions = (property: INodeProperties) =>
			property.name === 'options' && property.type === 'collection';
		for (const branch of layoutsOf(description, typeVersion)) {
			const collection = shown(description, branch, typeVersion).find(isOptions);
			if (!collection) continue;
			return (collection.options as INodeProperties[]).map(
				(option) =>
					[
						`${label} › Options › ${option.displayName}`,
						description,
						branch,
						option,
						typeVersion,
					] as const,
			);
		}
		return [];
	});

	it('checks the Options of every version of a node that has them', () => {
		const withOptions = versioned.filter(({ description }) =>
			description.properties.some((property) => property.name === 'options'),
		);
		const checked = new Set(options.map(([name]) => name.split(' › ')[0]));
		expect(withOptions.map(({ label }) => label).filter((label) => !checked.has(label))).toEqual(
			[],
		);
	});

	it.each(options)(
		'%s: added at its default, it is accepted',
		async (_name, description, branch, option, typeVersion) => {
			const added = {
				[option.name]: option.default,
				...(NEEDS[`${description.name}.${option.name}`] ?? {}),
			};
			const outcome = await run(
				description,
				{ ...filledIn(description, branch, typeVersion), options: added },
				typeVersion,
			);
			expect(outcome).toMatchObject({ n8nRefused: false, message: undefined });
		},
	);
});
