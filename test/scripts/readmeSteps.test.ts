import * as fs from 'fs';
import * as path from 'path';

import { readmeSteps, stepAbout, tokensOf, tokensOfStep } from '../../scripts/n8n/readmeSteps';

/**
 * How the newcomer e2e reads the README's "Run an example in your n8n" (scripts/n8n/readmeSteps.ts):
 * the numbered steps, and in each the editor's names (bold) and quotes (italics) in order. The e2e
 * clicks and fills by these names in n8n's editor; here, that the reading is right and that the
 * README gives the three steps it follows.
 */
const readme = fs.readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

const SAMPLE = [
	'# x',
	'',
	'## Run an example in your n8n',
	'',
	'Some words with **Bold** outside the steps.',
	'',
	'1. **Install** the package and restart n8n.',
	"2. **Import the workflow**: **+** → **New workflow**, then the workflow's **…** menu → **Import**",
	'   → **From file**. It says so (*Credentials auto-added*).',
	'3. **Run it**: **Execute workflow**. To run it on its schedule, **Publish** it.',
	'',
	'- `an example`: **Skip If Unchanged**, a list item after the steps',
	'  continued on an indented line with **Another Name**.',
	'',
	'## Next section',
	'',
	'1. **Not a step** of the section.',
].join('\n');

describe("the README's steps as the newcomer e2e reads them", () => {
	it('takes the numbered items of the section, wrapped lines joined, and nothing after a blank line', () => {
		const steps = readmeSteps(SAMPLE);
		expect(steps.map((step) => step.title)).toEqual(['Install', 'Import the workflow', 'Run it']);
		expect(tokensOfStep(steps[1]).map((token) => `${token.kind}:${token.text}`)).toEqual([
			'name:+',
			'name:New workflow',
			'name:…',
			'name:Import',
			'name:From file',
			'quote:Credentials auto-added',
		]);
		expect(tokensOfStep(steps[2]).map((token) => token.text)).toEqual([
			'Execute workflow',
			'Publish',
		]);
	});

	it("picks a step's sentences: the run, and apart the schedule's", () => {
		const run = stepAbout(readmeSteps(SAMPLE), /^run/i);
		expect(tokensOfStep(run, /^(?![\s\S]*schedule)/i).map((token) => token.text)).toEqual([
			'Execute workflow',
		]);
		expect(tokensOfStep(run, /schedule/i).map((token) => token.text)).toEqual(['Publish']);
	});

	it('tells bold from italics, and an asterisk of a product from either', () => {
		expect(tokensOf('**Save**, then *Connection tested* and 2*3*4')).toEqual([
			{ kind: 'name', text: 'Save' },
			{ kind: 'quote', text: 'Connection tested' },
		]);
	});

	it('names the step it cannot find', () => {
		expect(() => stepAbout(readmeSteps(SAMPLE), /credential/i)).toThrow(
			/no step titled like \/credential\/i \(its steps: "Install", "Import the workflow", "Run it"\)/,
		);
	});

	it('finds in the README the steps the e2e follows, each naming what to click', () => {
		const steps = readmeSteps(readme);
		for (const title of [/credential/i, /import/i, /^run/i]) {
			const names = tokensOfStep(stepAbout(steps, title)).filter((token) => token.kind === 'name');
			expect([String(title), names.length > 0]).toEqual([String(title), true]);
		}
	});
});
