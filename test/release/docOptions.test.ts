/**
 * The options and defaults the pages name are the nodes' own: read from the built nodes and
 * credentials (dist/, as n8n loads them, every version of a versioned node), so an option added
 * or renamed in a node's description is seen here without touching this test.
 *  - docs/nodes.md's table of parameters: each node's "options:" list names exactly the
 *    options of that node's Options collection (its newest version), through the shorthands
 *    the page defines under the table ("a file's options", "the reuse options");
 *  - every page: an option or parameter stated with its default ("**Header Row**, *Auto*
 *    (default)", "**Defuse Formulas** (on by default)", "**IP Address Column** (default
 *    `ip_address`)", "Options > Reuse Answers For (Hours) (0, never, by default)") exists under
 *    that name, and every parameter of that name has that default.
 */
import * as fs from 'fs';
import * as path from 'path';

import type {
	ICredentialType,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';

const root = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	n8n: { nodes: string[]; credentials: string[] };
};

interface Parameter {
	owner: string;
	displayName: string;
	default: unknown;
	/** The labels and values of an options or multiOptions parameter. */
	choices: Array<{ name: string; value: unknown }>;
}

function instance<T>(file: string): T {
	const exported = require(path.join(root, file)) as Record<string, new () => T>;
	return new (Object.values(exported)[0])();
}

/** Each node's descriptions, oldest version first (a versioned node has one per version). */
function nodeDescriptions(): Array<{ file: string; versions: INodeTypeDescription[] }> {
	return manifest.n8n.nodes.map((file) => {
		const node = instance<{
			description: INodeTypeDescription;
			nodeVersions?: Record<string, { description: INodeTypeDescription }>;
		}>(file);
		const versions = node.nodeVersions
			? Object.values(node.nodeVersions).map((version) => version.description)
			: [node.description];
		return { file, versions };
	});
}

/** Every parameter, at any depth (collections, fixed collections), of a list of properties. */
function flatten(
	owner: string,
	properties: Array<INodeProperties | INodePropertyCollection | INodePropertyOptions>,
): Parameter[] {
	return properties.flatMap((property) => {
		if ('values' in property && Array.isArray(property.values))
			return flatten(owner, property.values);
		if (!('type' in property)) return [];
		const nested = ['collection', 'fixedCollection'].includes(property.type)
			? flatten(owner, (property.options ?? []) as INodeProperties[])
			: [];
		const choices =
			property.type === 'options' || property.type === 'multiOptions'
				? ((property.options ?? []) as INodePropertyOptions[]).map((option) => ({
						name: option.name,
						value: option.value,
					}))
				: [];
		return [
			{ owner, displayName: property.displayName, default: property.default, choices },
			...nested,
		];
	});
}

const nodes = nodeDescriptions();
const PARAMETERS: Parameter[] = [
	...nodes.flatMap(({ versions }) =>
		versions.flatMap((description) => flatten(description.displayName, description.properties)),
	),
	...manifest.n8n.credentials.flatMap((file) => {
		const credential = instance<ICredentialType>(file);
		return flatten(credential.displayName, credential.properties);
	}),
];

type VersionCondition = number | { _cnd: { gte?: number; lte?: number; eq?: number } };

/** Whether a property shows at a node version (its `@version` display condition). */
function shownAt(property: INodeProperties, version: number): boolean {
	const conditions = property.displayOptions?.show?.['@version'] as VersionCondition[] | undefined;
	if (!conditions) return true;
	return conditions.some((condition) =>
		typeof condition === 'number'
			? condition === version
			: (condition._cnd.gte ?? -Infinity) <= version &&
				version <= (condition._cnd.lte ?? Infinity) &&
				(condition._cnd.eq ?? version) === version,
	);
}

/** The highest version a description covers. */
const newestVersion = (description: INodeTypeDescription) =>
	Math.max(...[description.version].flat());

/** The display names of a description's Options collection(s), at a version or at any. */
function optionNames(description: INodeTypeDescription, version?: number): string[] {
	return description.properties
		.filter(
			(property) =>
				property.type === 'collection' && (version === undefined || shownAt(property, version)),
		)
		.flatMap((property) =>
			((property.options ?? []) as INodeProperties[]).map((option) => option.displayName),
		);
}

const nodesPage = fs.readFileSync(path.join(root, 'docs', 'nodes.md'), 'utf8');
const flat = (text: string) => text.replace(/\s+/g, ' ');

/** The shorthands docs/nodes.md defines under its table: `*a file's options*: X, Y and Z ([link](...))`. */
function shorthands(): Map<string, string[]> {
	const found = new Map<string, string[]>();
	for (const match of flat(nodesPage).matchAll(
		/\*((?:[Aa] file's|[Tt]he reuse) options)\*: (.+?)(?: \(\[|\. )/g,
	)) {
		found.set(match[1].toLowerCase(), listed(match[2]));
	}
	return found;
}

/** Every option name of the package's nodes and credentials. */
const KNOWN = new Set(PARAMETERS.map((parameter) => parameter.displayName));

/**
 * A list as the README writes it: "A, B (for X), and C (Hours)" -> [A, B, C (Hours)]. Commas and
 * "and" inside parentheses do not split it; a parenthesis is part of a name when the name with
 * it is an option's ("Reuse Answers For (Hours)"), else a note ("(Calculate only)") dropped.
 */
function listed(text: string): string[] {
	const items: string[] = [];
	let depth = 0;
	let current = '';
	const words = text.split(/(\(|\)|,|\band\b)/);
	for (const word of words) {
		if (word === '(') depth++;
		if (word === ')') depth--;
		if (depth === 0 && (word === ',' || word === 'and')) {
			items.push(current);
			current = '';
		} else current += word;
	}
	items.push(current);
	return items
		.map((item) => item.trim())
		.map((item) => (KNOWN.has(item) ? item : item.replace(/\s*\([^)]*\)/g, '').trim()))
		.filter((item) => item !== '');
}

/** The table's rows: node name and the options its Parameters cell lists. */
function tableRows(): Array<{ node: string; options: string[] }> {
	const table = nodesPage.slice(
		nodesPage.indexOf('## Parameters and output'),
		nodesPage.indexOf('\n## ', nodesPage.indexOf('## Parameters and output') + 3),
	);
	return table
		.split('\n')
		.filter(
			(line) => line.startsWith('| ') && !line.startsWith('| Node |') && !line.startsWith('|---'),
		)
		.map((line) => {
			const [node, , parameters] = line
				.split('|')
				.slice(1, -1)
				.map((cell) => cell.trim());
			const at = parameters.indexOf('options: ');
			return { node, options: at < 0 ? [] : listed(parameters.slice(at + 'options: '.length)) };
		});
}

describe("docs/nodes.md's table of nodes: the options of each", () => {
	const defined = shorthands();
	const rows = tableRows();

	it('defines its shorthands, each of options some node has, and has a row per node', () => {
		expect([...defined.keys()].sort()).toEqual(["a file's options", 'the reuse options']);
		const options = new Set(
			nodes.flatMap(({ versions }) => versions.flatMap((description) => optionNames(description))),
		);
		expect([...defined.values()].flat().filter((name) => !options.has(name))).toEqual([]);
		expect(rows.map((row) => `Abstract ${row.node}`).sort()).toEqual(
			nodes.map(({ versions }) => versions[versions.length - 1].displayName).sort(),
		);
	});

	it.each(
		nodes.map(({ versions }) => [versions[versions.length - 1].displayName, versions] as const),
	)('%s: the row names exactly its options', (displayName, versions) => {
		const row = rows.find((each) => `Abstract ${each.node}` === displayName)!;
		const latest = versions[versions.length - 1];
		const newest = optionNames(latest, newestVersion(latest));
		const any = new Set(versions.flatMap((description) => optionNames(description)));
		const named = row.options.flatMap((name) => {
			const expanded = defined.get(name.toLowerCase());
			// A shorthand stands for those of its options the node has.
			return expanded ? expanded.filter((option) => any.has(option)) : [name];
		});
		expect({
			displayName,
			unknown: named.filter((name) => !any.has(name)),
			missing: newest.filter((name) => !named.includes(name)),
		}).toEqual({
			displayName,
			unknown: [],
			missing: [],
		});
	});
});

/** A default as a page states it, against a parameter's. */
function sameDefault(parameter: Parameter, stated: string): boolean {
	const text = stated.trim().replace(/,(?=\d{3}\b)/g, '');
	if (text === 'on') return parameter.default === true;
	if (text === 'off') return parameter.default === false;
	if (String(parameter.default) === text) return true;
	// A choice's label: "*Auto* (default)" for the value "auto".
	return parameter.choices.some(
		(choice) => choice.name === text && choice.value === parameter.default,
	);
}

interface Statement {
	file: string;
	said: string;
	/** The parameter's display name, or undefined when only a choice's label is stated. */
	name?: string;
	stated: string;
}

/** Labels of n8n's own node settings (Settings > On Error), not parameters of these nodes. */
const N8N_SETTINGS = new Set(['Stop Workflow']);

const PAGES = [
	'README.md',
	'CHANGELOG.md',
	...fs
		.readdirSync(path.join(root, 'docs'))
		.filter((file) => file.endsWith('.md'))
		.map((file) => path.join('docs', file)),
];

/** Every option or parameter stated with a default on the pages. */
function statements(): Statement[] {
	const name = String.raw`(?:Options ?[>›] ?)?([A-Z][A-Za-z ()]*?[A-Za-z)])`;
	const patterns: Array<{ pattern: RegExp; choiceOnly?: boolean }> = [
		// **Defuse Formulas** (on by default), Options > **Skip Webmail Addresses** (on by default)
		{ pattern: new RegExp(String.raw`\*\*${name}\*\*,? \((on|off) by default`, 'g') },
		// **Options > Reuse Answers For (Hours)** (0, never, by default)
		{ pattern: new RegExp(String.raw`\*\*${name}\*\* \((\d+), [a-z]+, by default\)`, 'g') },
		// **IP Address Column** (default `ip_address`), **Start at Row** (default 1: ...)
		{
			pattern: new RegExp(
				String.raw`\*\*${name}\*\* \(default \x60?([^\x60\s,:)]+(?:,\d{3})*)\x60?[,:) ]`,
				'g',
			),
		},
		// (Options > Reuse Answers of Test Runs, on), (Skip Webmail Addresses, on by default)
		{ pattern: new RegExp(String.raw`\(${name}, (on|off)(?: by default)?\)`, 'g') },
		// option **Header Row**, *Auto* (default)
		{ pattern: new RegExp(String.raw`\*\*${name}\*\*, \*([^*]+)\* \(default\)`, 'g') },
		// *From a Node* (default), **One Item per Row** (default): a choice's label alone
		{ pattern: /(?<![*\w])\*{1,2}([A-Z][^*]+?)\*{1,2} \((?:the )?default[):]/g, choiceOnly: true },
	];
	return PAGES.flatMap((file) => {
		const text = flat(fs.readFileSync(path.join(root, file), 'utf8'));
		return patterns.flatMap(({ pattern, choiceOnly }) =>
			[...text.matchAll(pattern)]
				.filter((match) => !N8N_SETTINGS.has(match[1]))
				.map((match) =>
					choiceOnly
						? { file, said: match[0], stated: match[1] }
						: { file, said: match[0], name: match[1].trim(), stated: match[2] },
				),
		);
	});
}

describe('options and defaults the pages state', () => {
	const found = statements();

	it('finds them on the pages (a pattern that matches nothing checks nothing)', () => {
		if (process.env.SHOW_STATEMENTS)
			console.log(found.map((statement) => `${statement.file}: ${statement.said}`).join('\n'));
		expect(found.filter((statement) => statement.name).length).toBeGreaterThanOrEqual(8);
		expect(found.filter((statement) => !statement.name).length).toBeGreaterThanOrEqual(3);
	});

	it('each names a parameter the nodes have, with that default', () => {
		const wrong = found.flatMap((statement) => {
			if (!statement.name) {
				const owners = PARAMETERS.filter(
					(parameter) => sameDefault(parameter, statement.stated) && parameter.choices.length > 0,
				);
				return owners.length > 0
					? []
					: [
							`${statement.file}: "${statement.said}": no parameter has the choice "${statement.stated}" as its default`,
						];
			}
			const named = PARAMETERS.filter((parameter) => parameter.displayName === statement.name);
			if (named.length === 0)
				return [
					`${statement.file}: "${statement.said}": no parameter or option is named "${statement.name}"`,
				];
			const others = named.filter((parameter) => !sameDefault(parameter, statement.stated));
			return others.map(
				(parameter) =>
					`${statement.file}: "${statement.said}": ${parameter.owner}'s ${parameter.displayName} defaults to ${JSON.stringify(parameter.default)}`,
			);
		});
		expect(wrong).toEqual([]);
	});
});
