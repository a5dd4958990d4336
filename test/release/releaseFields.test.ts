/**
 * What package.json must say before the package is published, and does not say yet: nothing here
 * owns a repository address or a contact yet. So package.json leaves `repository` and `bugs` out;
 * `homepage` and the author's email, which n8n's lint and scanner require, are at example.com, a
 * domain reserved for examples that reaches nobody; and the README tells a user to clone "this
 * repository" without an address. An invented address is worse than none: a user who copies it
 * fails, and npm would show it as the package's.
 *
 * `npm test` checks the check, on manifests made for it, and prints what is missing today. The
 * publish workflow runs this file with RELEASE_CHECK=1 before `npm publish`: then every gap
 * fails the release, named with what to fill in.
 */
import * as fs from 'fs';
import * as path from 'path';

const root = path.resolve(__dirname, '../..');

interface Manifest {
	repository?: { url?: string } | string;
	homepage?: string;
	bugs?: { url?: string } | string;
	author?: { name?: string; email?: string } | string;
}

/** Domains reserved for documentation and tests (RFC 2606, RFC 6761): an address there reaches nobody. */
const RESERVED = /(?:^|\.)(?:example(?:\.com|\.net|\.org)?|test|invalid|localhost)$/i;

const urlOf = (value: { url?: string } | string | undefined) =>
	typeof value === 'string' ? value : value?.url;

/** The repository's web address from package.json's `git+https://host/owner/name.git`. */
const webAddress = (url: string) => url.replace(/^git\+/, '').replace(/\.git$/, '');

function isRealUrl(value: string | undefined): boolean {
	if (!value) return false;
	try {
		const { protocol, hostname } = new URL(value.replace(/^git\+/, ''));
		return protocol === 'https:' && !RESERVED.test(hostname);
	} catch {
		return false;
	}
}

/** What must be filled in before publishing: one sentence per gap, saying what to put there. */
function releaseGaps(manifest: Manifest, readme: string): string[] {
	const gaps: string[] = [];
	const repository = urlOf(manifest.repository);
	if (!isRealUrl(repository))
		gaps.push(
			'package.json repository.url: the address of the repository the release is tagged in (npm provenance names that repository, and n8n scans the commit it names)',
		);
	if (!isRealUrl(manifest.homepage))
		gaps.push("package.json homepage: the repository's README, where users read how to install");
	if (!isRealUrl(urlOf(manifest.bugs)))
		gaps.push('package.json bugs.url: where users report a problem');
	const email =
		typeof manifest.author === 'string'
			? /<([^>]*)>/.exec(manifest.author)?.[1]
			: manifest.author?.email;
	const domain = email?.split('@')[1] ?? '';
	if (!email || !domain || RESERVED.test(domain))
		gaps.push(
			`package.json author.email: an address that reaches the maintainers (now ${email ?? 'none'}, which reaches nobody)`,
		);
	if (isRealUrl(repository) && !readme.includes(`git clone ${webAddress(repository!)}`))
		gaps.push(
			`README.md: the install section's clone command, git clone ${webAddress(repository!)}.git (it now says to clone "this repository")`,
		);
	return gaps;
}

const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

const FILLED: Manifest = {
	repository: { url: 'git+https://github.com/someone/n8n-nodes-abstractapi.git' },
	homepage: 'https://github.com/someone/n8n-nodes-abstractapi#readme',
	bugs: { url: 'https://github.com/someone/n8n-nodes-abstractapi/issues' },
	author: { name: 'Someone', email: 'someone@mail.someone.dev' },
};
const CLONE = 'git clone https://github.com/someone/n8n-nodes-abstractapi.git';

describe('what must be filled in before publishing', () => {
	it('is nothing when package.json names a repository, a homepage, a tracker and an author who can be reached, and the README clones that repository', () => {
		expect(releaseGaps(FILLED, `\`\`\`sh\n${CLONE}\n\`\`\``)).toEqual([]);
	});

	it('names each field that is missing or points nowhere', () => {
		const gaps = releaseGaps(
			{
				...FILLED,
				homepage: undefined,
				bugs: 'https://tracker.invalid/issues',
				author: 'Someone <someone@example.com>',
			},
			CLONE,
		);
		expect(gaps.map((gap) => gap.split(':')[0])).toEqual([
			'package.json homepage',
			'package.json bugs.url',
			'package.json author.email',
		]);
		expect(
			releaseGaps({ ...FILLED, repository: undefined }, '').map((gap) => gap.split(':')[0]),
		).toEqual(['package.json repository.url']);
	});

	it('asks the README to clone the repository package.json names', () => {
		expect(releaseGaps(FILLED, 'Clone this repository.')).toEqual([
			expect.stringMatching(
				/^README\.md: .*git clone https:\/\/github\.com\/someone\/n8n-nodes-abstractapi\.git/,
			),
		]);
	});

	it('reports what this package.json lacks, and fails on it only before publishing', () => {
		const gaps = releaseGaps(manifest, readme);
		// Shown on every run, so that a release is never a surprise; fatal only before publishing.
		if (gaps.length > 0) console.log(`Before publishing, fill in:\n- ${gaps.join('\n- ')}`);
		if (process.env.RELEASE_CHECK === '1') expect(gaps).toEqual([]);
		// No address can be told invented offline; what can be held: the README clones no
		// repository but the one package.json names (none, until it names one).
		const repository = urlOf(manifest.repository);
		const cloned = [...readme.matchAll(/git clone (\S+)/g)].map((match) => match[1]);
		expect(cloned).toEqual(
			cloned.map(() => (repository ? `${webAddress(repository)}.git` : 'no address')),
		);
	});
});
