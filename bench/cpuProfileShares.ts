import { promises as fs } from 'fs';

/**
 * Where a node's time goes in a V8 CPU profile of `n8n execute` (NODE_OPTIONS=--cpu-prof): the
 * samples from the first to the last one taken inside the node's execution (a frame that
 * `marker` matches: n8n's start-up is left out), as shares of what each group of frames holds.
 */

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string };
	children?: number[];
}

interface CpuProfile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
}

/**
 * A group: `self` counts the samples taken in a matching frame, else those with one on the stack
 * (and none that `unless` matches).
 */
export interface FrameGroup {
	label: string;
	matches(frame: ProfileNode['callFrame']): boolean;
	self?: boolean;
	unless?(frame: ProfileNode['callFrame']): boolean;
}

/** The package's own files, wherever n8n installed it. */
export const PACKAGE_CODE = (frame: ProfileNode['callFrame']) =>
	frame.url.includes('/node_modules/n8n-nodes-abstractapi/');

/** Each group's share of the samples inside the node's execution, and how many milliseconds that spans. */
export async function profileShares(
	file: string,
	marker: (frame: ProfileNode['callFrame']) => boolean,
	groups: FrameGroup[],
): Promise<{ milliseconds: number; shares: Map<string, number> }> {
	const profile = JSON.parse(await fs.readFile(file, 'utf8')) as CpuProfile;
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parentOf = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parentOf.set(child, node.id);
	const stackOf = (id: number) => {
		const frames: Array<ProfileNode['callFrame']> = [];
		for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at))
			frames.push(byId.get(at)!.callFrame);
		return frames;
	};
	let time = 0;
	const samples = profile.samples.map((id, index) => {
		time += profile.timeDeltas[index];
		return { time, stack: stackOf(id) };
	});
	const inside = samples.filter(({ stack }) => stack.some(marker));
	const from = inside[0]?.time ?? 0;
	const to = inside[inside.length - 1]?.time ?? 0;
	const window = samples.filter((sample) => sample.time >= from && sample.time <= to);
	const shares = new Map<string, number>();
	for (const group of groups) {
		const { matches, unless } = group;
		const count = window.filter(({ stack }) =>
			group.self
				? matches(stack[0])
				: stack.some(matches) && !(unless !== undefined && stack.some(unless)),
		).length;
		shares.set(group.label, count / Math.max(1, window.length));
	}
	return { milliseconds: (to - from) / 1000, shares };
}
