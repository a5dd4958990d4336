/**
 * The documentation holds together: every relative link in README.md, CONTRIBUTING.md,
 * CHANGELOG.md and docs/ reaches a file that exists and, with a #fragment, a heading that file
 * has (GitHub's anchor for it). A README that sends a user to a moved or renamed section is a
 * dead end. And no file of the repository names a tracker issue by number, or cites a document a
 * reader of the repository cannot open (the service's specification by section, "contract 4.2",
 * "spec 2.11", "(2.2.2)", "§3"): a comment or a page says why, and states the rule, in words that
 * stay true without the tracker or the document.
 */
import * as fs from 'fs';
import * as path from 'path';

const root = path.resolve(__dirname, '../..');

/** Where the documentation lives: the pages a user or contributor reads. */
const DOC_FILES = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'];
const DOC_FOLDERS = ['docs'];

/** Where an issue number could hide: everything of the repository but dependencies and builds. */
const SOURCE_ROOTS = [
	'README.md',
	'CONTRIBUTING.md',
	'CHANGELOG.md',
	'docs',
	'nodes',
	'credentials',
	'test',
	'bench',
	'scripts',
	'examples',
	'icons',
	'.ci',
	'.github',
];
const SOURCE_EXTENSIONS = new Set([
	'.ts',
	'.js',
	'.mjs',
	'.cjs',
	'.json',
	'.md',
	'.yml',
	'.yaml',
	'.sh',
	'',
]);
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.out', '.git']);

function filesUnder(relative: string, keep: (file: string) => boolean): string[] {
	const absolute = path.join(root, relative);
	if (!fs.existsSync(absolute)) return [];
	if (fs.statSync(absolute).isFile()) return keep(relative) ? [relative] : [];
	return fs
		.readdirSync(absolute, { withFileTypes: true })
		.filter((entry) => !SKIPPED_FOLDERS.has(entry.name))
		.flatMap((entry) => filesUnder(path.join(relative, entry.name), keep));
}

function docFiles(): string[] {
	const isMarkdown = (file: string) => file.endsWith('.md');
	return [...DOC_FILES, ...DOC_FOLDERS].flatMap((entry) => filesUnder(entry, isMarkdown));
}

/** Markdown without fenced code blocks and inline code, whose brackets are not links. */
function withoutCode(markdown: string): string {
	return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
	return heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/[`*]/g, '')
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

/** The anchors a markdown file offers, repeated headings numbered as GitHub numbers them. */
function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	const body = markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
	for (const match of body.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
		const anchor = anchorOf(match[1]);
		const count = seen.get(anchor) ?? 0;
		anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
		seen.set(anchor, count + 1);
	}
	return anchors;
}

/** Every relative link target of a markdown file: `[text](target)` and `![alt](target)`. */
function relativeLinks(markdown: string): string[] {
	return [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
		.map((match) => match[1])
		.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with one link of `file`, or undefined when it resolves. */
function brokenLink(file: string, target: string): string | undefined {
	const [linkPath, fragment] = target.split('#', 2) as [string, string | undefined];
	const resolved =
		linkPath === ''
			? path.join(root, file)
			: path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(linkPath));
	if (!fs.existsSync(resolved)) return `${file}: ${target}: no such file`;
	if (fragment === undefined) return undefined;
	if (!resolved.endsWith('.md'))
		return `${file}: ${target}: an anchor into a file that is not markdown`;
	if (!anchorsOf(fs.readFileSync(resolved, 'utf8')).has(fragment))
		return `${file}: ${target}: no heading with that anchor`;
	return undefined;
}

/** An issue named by its number: the word issue (or issues) then a number, or a number after '#' in parentheses. */
const ISSUE_NUMBER = /\bissues?\s+#?\d|\(#\d+\)/i;

/**
 * A reference to a document outside the repository: a section of "the contract" or "the spec", a
 * bare section number in parentheses or with 's, a § sign, "public facts". `contract` as a code
 * literal (a layout's name, in quotes or backticks) and an RFC's section are not references.
 */
const UNREACHABLE_REFERENCES: RegExp[] = [
	/\b(?:contract|spec|specification)s?\s+\d/i,
	/(?<!RFC \d+ )\bsection\s+\d/i,
	/§/,
	// "contract" and "Contract", not the upper-case CONTRACT of licence texts quoted word for word.
	/(?<![`'"])\b[Cc]ontracts?(?:'s)?\b(?![`'"])/,
	/\bpublic facts\b/i,
	/(?<![\w.])\(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?(?:(?:, ?| and )\d{1,2}(?:\.\d{1,2})+)*\)/,
	/(?<![\w.])\d{1,2}\.\d{1,2}'s\b/,
	// A section number woven into prose: "(2.11 convention 1)", "the mapping of 2.11", "(reproducible
	// builds, 2.11)", "(2.11: the API ...)".
	/(?<![\w.$])\d{1,2}\.\d{1,2}(?:\.\d{1,2})? convention\b/,
	/\b(?:mapping|record|schemas?|conventions?|cadence) of \d{1,2}\.\d{1,2}\b(?!\.\d)/i,
	/\b(?:reproducible|cadence|builds?),? \d{1,2}\.\d{1,2}[),]/,
	/\(\d{1,2}\.\d{1,2}: (?:the|a|an)\b/,
];

/** Every line of the repository's own files (documentation, sources, tests, scripts, examples) that `pattern` finds. */
function linesMatching(matches: (line: string) => boolean): string[] {
	const keep = (file: string) =>
		SOURCE_EXTENSIONS.has(path.extname(file)) &&
		file !== path.join('test', 'release', 'docLinks.test.ts');
	return SOURCE_ROOTS.flatMap((entry) => filesUnder(entry, keep)).flatMap((file) =>
		fs
			.readFileSync(path.join(root, file), 'utf8')
			.split('\n')
			.flatMap((line, index) => (matches(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
	);
}

describe('documentation links', () => {
	it('finds the pages it checks', () => {
		expect(docFiles()).toEqual(
			expect.arrayContaining(['README.md', path.join('docs', 'bulk-csv.md')]),
		);
	});

	it('computes anchors as GitHub does', () => {
		expect(anchorOf('Results as one file: Output "Result File"')).toBe(
			'results-as-one-file-output-result-file',
		);
		expect(anchorOf('Error handling: the three On Error settings')).toBe(
			'error-handling-the-three-on-error-settings',
		);
		expect(anchorOf('Bulk CSV: memory in `n8n-core`')).toBe('bulk-csv-memory-in-n8n-core');
	});

	it('resolves every relative link of README, CONTRIBUTING, CHANGELOG and docs/', () => {
		const broken = docFiles().flatMap((file) =>
			relativeLinks(fs.readFileSync(path.join(root, file), 'utf8'))
				.map((target) => brokenLink(file, target))
				.filter((problem): problem is string => problem !== undefined),
		);
		expect(broken).toEqual([]);
	});
});

describe('issue numbers', () => {
	it('appear in no source, test, script, example or documentation file', () => {
		const keep = (file: string) => SOURCE_EXTENSIONS.has(path.extname(file));
		const found = SOURCE_ROOTS.flatMap((entry) => filesUnder(entry, keep)).flatMap((file) =>
			fs
				.readFileSync(path.join(root, file), 'utf8')
				.split('\n')
				.flatMap((line, index) =>
					ISSUE_NUMBER.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
				),
		);
		expect(found).toEqual([]);
	});
});

describe('references a reader cannot follow', () => {
	it('tells a reference from a figure, a version or a code literal', () => {
		const flagged = (line: string) => UNREACHABLE_REFERENCES.some((pattern) => pattern.test(line));
		for (const line of [
			'(contract 4.2)',
			'spec 2.11',
			'answered with 2.2.2 (2.2.2)',
			'see §3',
			"as 2.11's schemas",
			"the contract's order",
			'Contract 2.2.2:',
			'(public facts)',
			'(4.1, 4.2)',
			'(2.11 convention 1)',
			'the mapping of 2.11',
			'the record of 2.3:',
			'(reproducible builds, 2.11)',
			'(weekly cadence, 2.11)',
			'(2.11: the API gives',
		]) {
			expect([line, flagged(line)]).toEqual([line, true]);
		}
		for (const line of [
			"layout: 'contract'",
			'- `contract`: a flat record',
			'RFC 5952 section 5',
			'float(1.5)',
			'toBeCloseTo(3.75)',
			'(1.5x)',
			'n8n 2.41.1',
			'0.1-1.0',
			'IN AN ACTION OF CONTRACT, TORT OR OTHERWISE',
			"printMemory('MMDB', city, 1.2);",
			'(0.7: seven tenths of the side)',
			'(1.00: production asks afresh)',
		]) {
			expect([line, flagged(line)]).toEqual([line, false]);
		}
	});

	it('appear in no source, test, script, example or documentation file', () => {
		expect(
			linesMatching((line) => UNREACHABLE_REFERENCES.some((pattern) => pattern.test(line))),
		).toEqual([]);
	});
});
