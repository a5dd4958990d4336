/**
 * The README's "Run an example in your n8n", read as the newcomer e2e follows it: its numbered
 * steps, each with the names it gives the editor's buttons, menus and fields (in bold:
 * `**Import**`) and the texts it quotes (in italics: the credential type to pick, a notice the
 * editor shows), in the order a person meets them. The e2e clicks and fills by these names only,
 * so a step the README names otherwise than the editor fails it, in either direction.
 */
export const RUN_SECTION = '## Run an example in your n8n';

export type Token = { kind: 'name' | 'quote'; text: string };

export interface ReadmeStep {
	/** The step's own bold title ("Import the workflow"), not a name of the editor. */
	title: string;
	/** The step's sentences, each with its names and quotes in order. */
	sentences: Array<{ text: string; tokens: Token[] }>;
}

/** The numbered steps of the README's "Run an example in your n8n", wrapped lines joined. */
export function readmeSteps(readme: string): ReadmeStep[] {
	const start = readme.indexOf(`\n${RUN_SECTION}\n`);
	if (start < 0) throw new Error(`README.md has no section "${RUN_SECTION}"`);
	const next = readme.indexOf('\n#', start + RUN_SECTION.length + 1);
	const items: string[] = [];
	// A step is its numbered line and the indented lines right under it, up to a blank line.
	let inItem = false;
	for (const line of readme.slice(start, next < 0 ? undefined : next).split('\n')) {
		const continues: boolean = inItem && /^ {2,}\S/.test(line);
		if (/^\d+\. /.test(line)) items.push(line.replace(/^\d+\. /, ''));
		else if (continues) items[items.length - 1] += ` ${line.trim()}`;
		inItem = /^\d+\. /.test(line) || continues;
	}
	return items.map((item) => {
		const [, title = ''] = /^\*\*([^*]+)\*\*/.exec(item) ?? [];
		const rest = item.slice(title ? title.length + 4 : 0);
		const sentences = rest
			.split(/(?<=[.!?])\s+(?=[A-Z*`(])/)
			.map((text) => ({ text, tokens: tokensOf(text) }));
		return { title, sentences };
	});
}

/** The names (bold) and quotes (italics) of a text, in order. */
export function tokensOf(text: string): Token[] {
	return [...text.matchAll(/\*\*([^*]+)\*\*|(?<![*\w])\*([^*\s][^*]*?)\*(?![*\w])/g)].map(
		(match) =>
			match[1] !== undefined ? { kind: 'name', text: match[1] } : { kind: 'quote', text: match[2] },
	);
}

/** The step whose title matches, or an error that names what the e2e looked for. */
export function stepAbout(steps: ReadmeStep[], title: RegExp): ReadmeStep {
	const step = steps.find((each) => title.test(each.title));
	if (!step)
		throw new Error(
			`README.md's "${RUN_SECTION}" has no step titled like ${title} (its steps: ${steps.map((each) => `"${each.title}"`).join(', ')})`,
		);
	return step;
}

/** A step's tokens, all its sentences' or those of the sentences a pattern picks. */
export function tokensOfStep(step: ReadmeStep, sentence?: RegExp): Token[] {
	return step.sentences
		.filter((each) => !sentence || sentence.test(each.text))
		.flatMap((each) => each.tokens);
}
