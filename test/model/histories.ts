import fc from 'fast-check';
import type { IDataObject, INode } from 'n8n-workflow';

import { hintsOf } from '../harness/hints';
import { keptAnswers as kept } from '../harness/keptStore';
import { emailOf, paidEmails } from '../harness/retryOnFail';
import { retryExecution, runNode, type RunResult } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import type { Sandbox } from '../sandbox/server';
import type { SandboxRequest } from '../sandbox/types';
import { PaidAnswersModel, type Decision, type ModelRun } from './paidAnswersModel';

/**
 * Random histories of Email Reputation runs through n8n-core against the sandbox, each step held
 * to the model (paidAnswersModel.ts): test runs and production runs of two workflows, executions
 * at the same time, Retries of any failed execution (a Retry's too) with Send Repeated Values
 * Once changed before some, Retry On Fail with refusals, spent plans, Reuse Answers For (Hours),
 * the clock moved, a result file cut by a spent plan and resumed as docs/bulk-csv.md says, the
 * default budget or a small one. For each run: what it paid equals what the model says it must
 * send, the estimate before it says the same, and the figures it states (the kept answers of a
 * failed execution, the answers reused by rule) are the model's. fast-check's commands shrink a
 * failing history to a minimal one.
 */

const HOUR = 60 * 60 * 1000;
const RESULT = { output: 'resultFile', resultBinaryPropertyName: 'result' };
export const POOL = ['a', 'b', 'c', 'd', 'e'].map((name) => `${name}@example.com`);

export interface RunSpec {
	workflow: number;
	mode: 'manual' | 'webhook' | 'trigger';
	values: number[];
	repeatsOnce: boolean;
	hours: 0 | 2;
	retryOnFail: boolean;
	/** refuseOnce: a value the service refuses once (400); refuseAlways: on every try; quota: credits left. */
	fault: 'none' | 'refuseOnce' | 'refuseAlways' | 'quota';
	quota: number;
}

/** What the histories covered: the bench prints it. */
export interface Coverage {
	histories: number;
	runs: number;
	testRuns: number;
	overlapping: number;
	retries: number;
	retriesOfRetries: number;
	optionsChangedBeforeRetry: number;
	retryOnFailRefusals: number;
	spentPlans: number;
	reuseHours: number;
	clockMoved: number;
	resumedFiles: number;
	smallBudget: number;
}

export const emptyCoverage = (): Coverage => ({
	histories: 0,
	runs: 0,
	testRuns: 0,
	overlapping: 0,
	retries: 0,
	retriesOfRetries: 0,
	optionsChangedBeforeRetry: 0,
	retryOnFailRefusals: 0,
	spentPlans: 0,
	reuseHours: 0,
	clockMoved: 0,
	resumedFiles: 0,
	smallBudget: 0,
});

interface Failed {
	result: RunResult;
	spec: RunSpec;
	values: string[];
	retry: boolean;
}

/** One history's world: the sandbox, the model beside it, the failed executions a Retry may take. */
export class World {
	readonly model = new PaidAnswersModel();
	readonly failed: Failed[] = [];
	readonly divergences: string[] = [];
	private executions = 0;
	private unique = 0;
	now = Date.UTC(2026, 0, 1);

	constructor(
		readonly sandbox: Sandbox,
		readonly history: number,
		/** A small budget drops answers for room: the model's payments are then an upper bound. */
		readonly smallBudget: boolean,
		readonly coverage: Coverage,
	) {
		this.model.now = this.now;
	}

	diverged(step: string, what: string): void {
		this.divergences.push(`${step}: ${what}`);
	}

	workflowId = (workflow: number) => `history-${this.history}-w${workflow}`;
	nextExecution = () => ++this.executions;
	uniqueValue = (kind: string) => `${kind}${++this.unique}-${this.history}@example.com`;

	advance(minutes: number): void {
		this.now += minutes * 60_000;
		this.model.now = this.now;
	}
}

const reuseMsOf = (spec: Pick<RunSpec, 'mode' | 'hours'>) =>
	spec.mode === 'manual' ? HOUR : spec.hours * HOUR;

function emailNode(world: World, spec: RunSpec, extra: IDataObject = {}) {
	return runNode({
		type: 'abstractEmail',
		parameters: { email: '={{ $json.email }}', options: optionsOf(spec, extra) },
		credential: sandboxCredential(world.sandbox, 'email'),
		items: valuesOf(world, spec).map((email) => ({ json: { email } })),
		workflowId: world.workflowId(spec.workflow),
		mode: spec.mode,
		settings: spec.retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 } : {},
	});
}

function optionsOf(spec: Pick<RunSpec, 'repeatsOnce' | 'hours'>, extra: IDataObject): IDataObject {
	return { sendRepeatsOnce: spec.repeatsOnce, reuseAnswersForHours: spec.hours, ...extra };
}

const specValues = new WeakMap<RunSpec, string[]>();

/** The run's values: the pool's, and the fault's own value last (refused once, or always). */
export function valuesOf(world: World, spec: RunSpec): string[] {
	let values = specValues.get(spec);
	if (!values) {
		values = spec.values.map((index) => POOL[index]);
		if (spec.fault === 'refuseOnce') values.push(world.uniqueValue('once'));
		if (spec.fault === 'refuseAlways') values.push(world.uniqueValue('bad'));
		specValues.set(spec, values);
	}
	return values;
}

function faultFor(world: World, spec: RunSpec, values: string[]): void {
	const last = values[values.length - 1];
	const is = (request: SandboxRequest) => emailOf(request) === last;
	if (spec.fault === 'refuseOnce') {
		let left = 1;
		world.sandbox.faultWhen('email', (request) => is(request) && left-- > 0, REFUSED);
	}
	if (spec.fault === 'refuseAlways') world.sandbox.faultWhen('email', is, REFUSED);
	if (spec.fault === 'quota') world.sandbox.setQuota('email', spec.quota);
}

const REFUSED = { kind: 'status', status: 400, message: 'Bad request' } as const;

export const sorted = (values: string[]) => [...values].sort();
export const same = (a: string[], b: string[]) =>
	JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));

/** Whether `part` is within `whole`, counting repeats. */
export function within(part: string[], whole: string[]): boolean {
	const left = [...whole];
	return part.every((value) => {
		const at = left.indexOf(value);
		if (at < 0) return false;
		left.splice(at, 1);
		return true;
	});
}

/** The model's run of a spec, and its first try's decisions. */
export function modelRun(world: World, spec: RunSpec, values: string[], retry: boolean) {
	const run: ModelRun = {
		execution: world.nextExecution(),
		workflow: world.workflowId(spec.workflow),
		testRun: !retry && spec.mode === 'manual',
		retry,
		repeatsOnce: spec.repeatsOnce,
		reuseMs: retry ? spec.hours * HOUR : reuseMsOf(spec),
	};
	const decisions = world.model.decide(run, values);
	const sends = values.filter((_, index) => decisions[index].decision === 'send');
	return { run, decisions, sends };
}

/** What the run paid against what the model says it must send; then the model records it. */
function settle(
	world: World,
	step: string,
	result: RunResult,
	{ run, decisions, sends }: ReturnType<typeof modelRun>,
	spec: RunSpec,
	paid: string[],
	estimated: number,
	refused?: string,
): void {
	const failed = result.error !== undefined;
	const expected = refused ? sends.filter((value) => value !== refused) : sends;
	if (!world.smallBudget) {
		if (!failed && !same(paid, sends))
			world.diverged(step, `paid ${sorted(paid)}, the model says ${sorted(sends)}`);
		if (failed && !within(paid, expected))
			world.diverged(step, `paid ${sorted(paid)}, more than the model's ${sorted(expected)}`);
		if (failed && spec.fault === 'quota' && paid.length !== Math.min(spec.quota, sends.length))
			world.diverged(step, `paid ${paid.length} with ${spec.quota} credits for ${sends.length}`);
	} else if (!failed && spec.fault === 'none' && estimated !== paid.length) {
		// A budget that fills drops what no rule protects, and the model does not weigh answers:
		// what holds is that a run pays what its estimate said (nothing it was to take is dropped).
		world.diverged(step, `paid ${paid.length} (${sorted(paid)}), its estimate said ${estimated}`);
	}
	world.model.start(run);
	for (const value of paid) world.model.pay(run, value, run.testRun ? HOUR : spec.hours * HOUR);
	world.model.settle(run.execution, failed ? 'failed' : 'done');
	if (failed) {
		const said = /keeps the (\d+) answers? this execution paid for/.exec(
			result.error?.description ?? '',
		);
		const keeps = Number(said?.[1] ?? 0);
		if (!world.smallBudget && keeps !== world.model.keptBy(run.execution))
			world.diverged(
				step,
				`the error keeps ${keeps}, the model ${world.model.keptBy(run.execution)}`,
			);
		return;
	}
	if (world.smallBudget || (spec.retryOnFail && spec.fault !== 'none')) return;
	const count = (...kinds: Decision[]) =>
		decisions.filter(({ decision }) => kinds.includes(decision)).length;
	const hints = hintsOf(result).join('\n');
	const retried = Number(/(\d+) answers? reused from (a|\d+) failed/.exec(hints)?.[1] ?? 0);
	if (retried !== count('retry'))
		world.diverged(
			step,
			`the hint reused ${retried} from failed executions, the model ${count('retry')}`,
		);
	const reused = Number(/(\d+) of \d+ answers? reused from/.exec(hints)?.[1] ?? 0);
	if (reused !== count('testRuns', 'earlierRuns'))
		world.diverged(
			step,
			`the hint reused ${reused} of earlier runs, the model ${count('testRuns', 'earlierRuns')}`,
		);
}

/** The estimate before a run (Estimate Credits Only, the same node on the same input): the model's sends. */
function checkEstimate(world: World, step: string, estimate: RunResult, sends: string[]): number {
	const said = Number(estimate.output('Node')[0]?.json.requestsToSend);
	if (!world.smallBudget && said !== sends.length)
		world.diverged(step, `the estimate says ${said} requests, the model ${sends.length}`);
	return said;
}

export function countRun(world: World, spec: RunSpec): void {
	const { coverage } = world;
	coverage.runs++;
	if (spec.mode === 'manual') coverage.testRuns++;
	if (spec.hours > 0 && spec.mode !== 'manual') coverage.reuseHours++;
	if (spec.fault === 'quota') coverage.spentPlans++;
	if (spec.retryOnFail && spec.fault !== 'none') coverage.retryOnFailRefusals++;
}

/** A run of a workflow: its estimate, then the run, both against the model. */
export async function runStep(world: World, spec: RunSpec): Promise<void> {
	const step = `run ${JSON.stringify(spec)}`;
	const values = valuesOf(world, spec);
	const planned = modelRun(world, spec, values, false);
	world.sandbox.reset();
	const estimate = await emailNode(world, spec, { estimateOnly: true });
	const estimated = checkEstimate(world, step, estimate, planned.sends);
	faultFor(world, spec, values);
	const result = await emailNode(world, spec);
	const paid = paidEmails(world.sandbox);
	const refused = spec.fault === 'refuseAlways' ? values[values.length - 1] : undefined;
	settle(world, step, result, planned, spec, paid, estimated, refused);
	countRun(world, spec);
	if (result.error) world.failed.push({ result, spec, values, retry: false });
}

/** A Retry of a failed execution (of a Retry, too), its Options perhaps changed since. */
export async function retryStep(
	world: World,
	target: number,
	toggleRepeats: boolean,
	quota: number | undefined,
): Promise<void> {
	if (world.failed.length === 0) return;
	// Counted from the newest failed execution (a failed Retry, often): Retries of Retries.
	const failed = world.failed[world.failed.length - 1 - (target % world.failed.length)];
	const spec: RunSpec = {
		...failed.spec,
		repeatsOnce: toggleRepeats ? !failed.spec.repeatsOnce : failed.spec.repeatsOnce,
		fault: quota === undefined ? 'none' : 'quota',
		quota: quota ?? 0,
	};
	const step = `retry of ${JSON.stringify(failed.spec)} ${JSON.stringify({ toggleRepeats, quota })}`;
	const planned = modelRun(world, spec, failed.values, true);
	const withOptions = (extra: IDataObject): RunResult => {
		const nodes = failed.result.workflowJson.nodes.map(
			(node): INode =>
				node.name === 'Node'
					? {
							...node,
							parameters: {
								...node.parameters,
								options: optionsOf(spec, extra) as INode['parameters'],
							},
						}
					: node,
		);
		return { ...failed.result, workflowJson: { ...failed.result.workflowJson, nodes } };
	};
	world.sandbox.reset();
	const estimate = await retryExecution(withOptions({ estimateOnly: true }));
	const estimated = checkEstimate(world, step, estimate, planned.sends);
	if (quota !== undefined) world.sandbox.setQuota('email', quota);
	const result = await retryExecution(withOptions({}));
	const paid = paidEmails(world.sandbox);
	settle(world, step, result, planned, { ...spec, retryOnFail: false }, paid, estimated);
	world.coverage.retries++;
	if (failed.retry) world.coverage.retriesOfRetries++;
	if (toggleRepeats) world.coverage.optionsChangedBeforeRetry++;
	if (quota !== undefined) world.coverage.spentPlans++;
	if (result.error) world.failed.push({ result, spec, values: failed.values, retry: true });
}

/**
 * Two executions at the same time (production, Reuse Answers For (Hours) 0: neither may take the
 * other's answers): the first may wait between tries (Retry On Fail, a value refused once) or
 * fail on a value the service holds until the second is done.
 */
export async function overlapStep(world: World, a: RunSpec, b: RunSpec): Promise<void> {
	const step = `overlap ${JSON.stringify({ a, b })}`;
	const [valuesA, valuesB] = [valuesOf(world, a), valuesOf(world, b)];
	const [plannedA, plannedB] = [
		modelRun(world, a, valuesA, false),
		modelRun(world, b, valuesB, false),
	];
	world.sandbox.reset();
	let done: () => void = () => undefined;
	const bDone = new Promise<void>((resolve) => (done = resolve));
	const last = valuesA[valuesA.length - 1];
	if (a.fault === 'refuseOnce') {
		let left = 1;
		const once = (request: SandboxRequest) => emailOf(request) === last && left-- > 0;
		world.sandbox.faultWhen('email', once, REFUSED);
	}
	if (a.fault === 'refuseAlways') {
		world.sandbox.faultWhen('email', (request) => emailOf(request) === last, {
			kind: 'delay',
			ms: 0,
			until: bDone,
			then: REFUSED,
		});
	}
	const runA = runNode({
		type: 'abstractEmail',
		parameters: { email: '={{ $json.email }}', options: optionsOf(a, {}) },
		credential: sandboxCredential(world.sandbox, 'email'),
		items: valuesA.map((email) => ({ json: { email } })),
		workflowId: world.workflowId(a.workflow),
		mode: a.mode,
		settings: a.retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 200 } : {},
	});
	const resultB = await emailNode(world, b);
	done();
	const resultA = await runA;
	const paid = paidEmails(world.sandbox);
	const refused = a.fault === 'refuseAlways' ? last : undefined;
	const expected = [...plannedA.sends.filter((value) => value !== refused), ...plannedB.sends];
	if (!world.smallBudget && !same(paid, expected))
		world.diverged(step, `paid ${sorted(paid)}, the model says ${sorted(expected)}`);
	for (const [planned, spec, result, values] of [
		[plannedA, a, resultA, plannedA.sends.filter((value) => value !== refused)],
		[plannedB, b, resultB, plannedB.sends],
	] as const) {
		world.model.start(planned.run);
		for (const value of values) world.model.pay(planned.run, value, 0);
		world.model.settle(planned.run.execution, result.error ? 'failed' : 'done');
		if (result.error)
			world.failed.push({ result, spec, values: valuesOf(world, spec), retry: false });
		countRun(world, spec);
	}
	world.coverage.overlapping++;
}

/**
 * A result file cut by a spent plan while one row answers late (held until the credits are
 * spent, then refused once with a 429), then resumed as docs/bulk-csv.md says: Start at Row the
 * summary's nextRow, Skip Rows its skipRows. No row is paid twice; every row is answered once.
 */
export async function resumeStep(
	world: World,
	rows: number,
	quota: number,
	late: number,
): Promise<void> {
	const step = `result file ${JSON.stringify({ rows, quota, late })}`;
	const values = Array.from({ length: rows }, () => world.uniqueValue('row'));
	const bytes = Buffer.from(`email\n${values.join('\n')}\n`);
	const file = {
		json: {},
		binary: { data: { bytes, mimeType: 'text/csv', fileName: 'leads.csv' } },
	};
	const workflowId = `history-${world.history}-file-${values[0]}`;
	const run = (options: IDataObject) =>
		runNode({
			type: 'abstractEmail',
			parameters: {
				input: 'csvFile',
				binaryPropertyName: 'data',
				emailColumn: 'email',
				...RESULT,
				options,
			},
			credential: sandboxCredential(world.sandbox, 'email'),
			items: [file],
			workflowId,
			mode: 'trigger',
		});
	world.sandbox.reset();
	const credits = Math.min(quota, rows - 1);
	const spent = (async () => {
		while (paidEmails(world.sandbox).length < credits) await new Promise((r) => setTimeout(r, 2));
	})();
	let left = 1;
	world.sandbox.faultWhen(
		'email',
		(request) => emailOf(request) === values[late % rows] && left-- > 0,
		{
			kind: 'delay',
			ms: 0,
			until: spent,
			then: { kind: 'status', status: 429 },
		},
	);
	world.sandbox.setQuota('email', credits);
	const first = await run({});
	const firstPaid = paidEmails(world.sandbox);
	const summary = first.output('Node')[0]?.json ?? {};
	world.sandbox.reset();
	const resume = { startAtRow: summary.nextRow, skipRows: summary.skipRows ?? '' };
	const estimate = await run({ ...resume, estimateOnly: true });
	const second = await run(resume);
	const secondPaid = paidEmails(world.sandbox);
	if (second.error || !same([...firstPaid, ...secondPaid], values))
		world.diverged(
			step,
			`paid ${sorted(firstPaid)} then ${sorted(secondPaid)} for ${sorted(values)}`,
		);
	if (estimate.output('Node')[0]?.json.requestsToSend !== secondPaid.length)
		world.diverged(
			step,
			`the resume's estimate says ${String(estimate.output('Node')[0]?.json.requestsToSend)}, it paid ${secondPaid.length}`,
		);
	world.coverage.resumedFiles++;
}

export function advanceStep(world: World, minutes: number): void {
	world.advance(minutes);
	world.coverage.clockMoved++;
}

/** A step of a history, as fast-check's commands: each checks against the model and never throws. */
abstract class Step implements fc.AsyncCommand<World, World> {
	check = () => true;
	abstract run(world: World): Promise<void>;
	abstract toString(): string;
}

class Run extends Step {
	constructor(readonly spec: RunSpec) {
		super();
	}
	run = async (world: World) => await runStep(world, this.spec);
	toString = () => `run(${JSON.stringify(this.spec)})`;
}

class Retry extends Step {
	constructor(
		readonly target: number,
		readonly toggleRepeats: boolean,
		readonly quota: number | undefined,
	) {
		super();
	}
	run = async (world: World) => await retryStep(world, this.target, this.toggleRepeats, this.quota);
	toString = () =>
		`retry(${JSON.stringify([this.target, this.toggleRepeats, this.quota ?? null])})`;
}

class Overlap extends Step {
	constructor(
		readonly a: RunSpec,
		readonly b: RunSpec,
	) {
		super();
	}
	run = async (world: World) => await overlapStep(world, this.a, this.b);
	toString = () => `overlap(${JSON.stringify(this.a)}, ${JSON.stringify(this.b)})`;
}

class Resume extends Step {
	constructor(
		readonly rows: number,
		readonly quota: number,
		readonly late: number,
	) {
		super();
	}
	run = async (world: World) => await resumeStep(world, this.rows, this.quota, this.late);
	toString = () => `resume(${this.rows}, ${this.quota}, ${this.late})`;
}

class Advance extends Step {
	constructor(readonly minutes: number) {
		super();
	}
	run = async (world: World) => advanceStep(world, this.minutes);
	toString = () => `advance(${this.minutes})`;
}

const values = fc.array(fc.integer({ min: 0, max: POOL.length - 1 }), {
	minLength: 1,
	maxLength: 5,
});

export const runSpec = fc.record<RunSpec>({
	workflow: fc.integer({ min: 0, max: 1 }),
	mode: fc.constantFrom('manual', 'webhook', 'trigger'),
	values,
	repeatsOnce: fc.boolean(),
	hours: fc.constantFrom(0, 2),
	retryOnFail: fc.boolean(),
	fault: fc.constantFrom('none', 'none', 'refuseOnce', 'refuseAlways', 'quota'),
	quota: fc.integer({ min: 0, max: 4 }),
});

/** Production, no reuse, no spent plan: two such runs at once cannot take each other's answers. */
export const overlapSpec = (faults: Array<RunSpec['fault']>) =>
	runSpec.chain((spec) =>
		fc.constantFrom(...faults).map((fault) => ({
			...spec,
			mode: spec.mode === 'manual' ? ('webhook' as const) : spec.mode,
			hours: 0 as const,
			fault,
			retryOnFail: fault === 'refuseOnce',
		})),
	);

type Command = fc.AsyncCommand<World, World>;

/** How a level of the histories makes its steps (the full stack's below; the store's: storeHistories.ts). */
export interface StepMakers {
	run(spec: RunSpec): Command;
	retry(target: number, toggleRepeats: boolean, quota: number | undefined): Command;
	overlap(a: RunSpec, b: RunSpec): Command;
	advance(minutes: number): Command;
	resume?(rows: number, quota: number, late: number): Command;
}

/** A history of such steps, runs and Retries three times as likely as the others, and its budget. */
export function historiesOf(make: StepMakers) {
	const run = runSpec.map((spec) => make.run(spec));
	const retry = fc
		.tuple(
			fc.integer({ min: 0, max: 2 }),
			fc.boolean(),
			fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
		)
		.map(([target, toggle, quota]) => make.retry(target, toggle, quota));
	const resume = make.resume;
	const steps = [
		run,
		run,
		run,
		retry,
		retry,
		retry,
		fc
			.tuple(overlapSpec(['none', 'refuseOnce', 'refuseAlways']), overlapSpec(['none']))
			.map(([a, b]) => make.overlap(a, b)),
		fc.constantFrom(5, 30, 61).map((minutes) => make.advance(minutes)),
		...(resume
			? [
					fc
						.tuple(fc.integer({ min: 3, max: 6 }), fc.integer({ min: 1, max: 5 }), fc.nat())
						.map(([rows, quota, late]) => resume(rows, quota, late)),
				]
			: []),
	];
	return fc.record({ commands: fc.commands(steps, { maxCommands: 8 }), smallBudget: fc.boolean() });
}

/** A history through n8n-core and the sandbox. */
export const historyArbitrary = historiesOf({
	run: (spec) => new Run(spec),
	retry: (target, toggle, quota) => new Retry(target, toggle, quota),
	overlap: (a, b) => new Overlap(a, b),
	advance: (minutes) => new Advance(minutes),
	resume: (rows, quota, late) => new Resume(rows, quota, late),
});

/**
 * Runs one history against the sandbox (none: at the store's level, storeHistories.ts) and
 * returns its divergences from the model (none: it holds).
 */
export async function runHistory(
	sandbox: Sandbox | undefined,
	history: number,
	{
		commands,
		smallBudget,
	}: { commands: Iterable<fc.AsyncCommand<World, World>>; smallBudget: boolean },
	coverage: Coverage,
): Promise<string[]> {
	return await replay(sandbox, history, smallBudget, coverage, async (world) => {
		await fc.asyncModelRun(() => ({ model: world, real: world }), commands);
	});
}

/** A history's steps on an empty store with its own clock (a found counterexample replays this way). */
export async function replay(
	/** None at the store's level (storeHistories.ts), whose answers are a tenth the size. */
	sandbox: Sandbox | undefined,
	history: number,
	smallBudget: boolean,
	coverage: Coverage,
	steps: (world: World) => Promise<void>,
): Promise<string[]> {
	const world = new World(sandbox as Sandbox, history, smallBudget, coverage);
	kept.dropKeptAnswers(() => world.now);
	const small = sandbox ? SMALL_BUDGET : SMALL_BUDGET / 10;
	const previous = kept.setKeptAnswersBudget(smallBudget ? small : kept.KEPT_ANSWERS_BUDGET);
	try {
		await steps(world);
	} finally {
		kept.setKeptAnswersBudget(previous);
		kept.dropKeptAnswers();
	}
	coverage.histories++;
	if (smallBudget) coverage.smallBudget++;
	return world.divergences;
}

/** About four email answers: a full budget in most histories. */
export const SMALL_BUDGET = 6_000;
