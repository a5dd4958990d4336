import path from 'path';

import fc from 'fast-check';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { ROOT } from '../harness/root';
import {
	countRun,
	historiesOf,
	modelRun,
	same,
	sorted,
	valuesOf,
	within,
	World,
	type RunSpec,
} from './histories';

/*
 * The same histories as histories.ts, held to the same model, one level down: each run decided
 * by the engine's own decideUnit over the store's own view (keptAnswersOfRun.ts, answerRules.ts,
 * keptAnswers.ts, from dist/), with a node that answers every request at once instead of n8n-core
 * and the sandbox. Units go one after another; a spent plan or a refusal stops the try at once.
 * Fast enough for 100,000 histories in minutes (bench/paidHistories.ts); the full stack runs a
 * share of them.
 */

const { KeptAnswersOfRun } = require(
	path.join(ROOT, 'dist/nodes/shared/engine/keptAnswersOfRun.js'),
) as typeof import('../../nodes/shared/engine/keptAnswersOfRun');
const { decideUnit } = require(
	path.join(ROOT, 'dist/nodes/shared/engine/unitOutcome.js'),
) as typeof import('../../nodes/shared/engine/unitOutcome');

type Job = Parameters<typeof decideUnit>[1];
type Service = Parameters<typeof decideUnit>[0];
const SERVICE = { credentialType: 'email', serviceName: 'Email' } as unknown as Service;

/** What n8n gives a node, as far as the store reads it. */
function contextOf(world: World, spec: RunSpec, mode: string, executionId: string) {
	const node = {
		id: `w${spec.workflow}`,
		name: 'Node',
		type: 'email',
		typeVersion: 1,
		retryOnFail: spec.retryOnFail,
		maxTries: 3,
	};
	return {
		getNode: () => node,
		getMode: () => mode,
		continueOnFail: () => false,
		getWorkflow: () => ({ id: world.workflowId(spec.workflow) }),
		getExecutionId: () => executionId,
		getWorkflowDataProxy: () => ({ $thisRunIndex: 0 }),
	} as unknown as IExecuteFunctions;
}

interface Outcome {
	paid: string[];
	failed: boolean;
	kept: { paid: number; reused: number };
	estimated: number;
}

type View = ReturnType<typeof KeptAnswersOfRun.open>;

let executions = 0;

/**
 * One execution at the store's level: its estimate, then its tries, each unit decided by
 * decideUnit; a unit to send is paid unless `pays` refuses it (the try then stops and fails).
 * `meanwhile` runs once, half-way through the first try (another execution at the same time).
 */
async function storeRun(
	world: World,
	spec: RunSpec,
	values: string[],
	mode: string,
	meanwhile?: () => Promise<void>,
): Promise<Outcome> {
	const policy = { testRuns: true, hours: spec.hours };
	const job = { sendRepeatsOnce: spec.repeatsOnce, reuse: policy } as Job;
	const units = values.map((email) => ({ prepared: { email }, label: email }));
	const ctxFor = (executionId: string) => contextOf(world, spec, mode, executionId);
	const decide = async (view: View, ctx: IExecuteFunctions, pays?: (value: string) => boolean) => {
		const asked = new Set<string>();
		let sends = 0;
		for (const [index, unit] of units.entries()) {
			if (pays && meanwhile && index === Math.floor(units.length / 2)) {
				await meanwhile();
				meanwhile = undefined;
			}
			const decision = decideUnit(SERVICE, job, unit, {
				asks: (identity) => asked.has(identity),
				stopped: false,
				keptAnswers: view,
			});
			if (spec.repeatsOnce && decision.identity !== undefined) asked.add(decision.identity);
			if (decision.kind === 'kept') await view?.take(ctx, decision.found);
			if (decision.kind !== 'send') continue;
			sends++;
			if (!pays) continue;
			if (!pays(unit.prepared.email)) return { sends, failed: true };
			const answer: INodeExecutionData[] = [{ json: { email: unit.prepared.email } }];
			view?.keep(decision.identity, answer, true, policy);
		}
		return { sends, failed: false };
	};
	const estimateCtx = ctxFor(`estimate${++executions}`);
	const estimate = KeptAnswersOfRun.open(estimateCtx, 'key', [policy], { estimate: true });
	const estimated = (await decide(estimate, estimateCtx)).sends;
	const ctx = ctxFor(`execution${++executions}`);
	const paid: string[] = [];
	let credits = spec.fault === 'quota' ? spec.quota : Number.POSITIVE_INFINITY;
	let refusals = { none: 0, quota: 0, refuseOnce: 1, refuseAlways: Infinity }[spec.fault];
	const refused = values[values.length - 1];
	const pays = (value: string) => {
		if (spec.fault.startsWith('refuse') && value === refused && refusals-- > 0) return false;
		if (credits-- <= 0) return false;
		paid.push(value);
		return true;
	};
	for (let tries = 1; ; tries++) {
		const planned = new Set(values.map((email) => JSON.stringify({ email })));
		const view = KeptAnswersOfRun.open(ctx, 'key', [policy], { planned });
		const { failed } = await decide(view, ctx, pays);
		const kept = view?.finish(failed, false) ?? { paid: 0, reused: 0 };
		if (!failed || !(spec.retryOnFail && tries < 3)) return { paid, failed, kept, estimated };
	}
}

/** The run against the model (as histories.ts's settle, at the store's level), then recorded in it. */
function check(
	world: World,
	step: string,
	planned: ReturnType<typeof modelRun>,
	spec: RunSpec,
	{ paid, failed, kept, estimated }: Outcome,
): void {
	const { run, sends } = planned;
	if (!world.smallBudget) {
		if (estimated !== sends.length)
			world.diverged(step, `the estimate says ${estimated}, the model ${sends.length}`);
		if (!failed && !same(paid, sends))
			world.diverged(step, `paid ${sorted(paid)}, the model says ${sorted(sends)}`);
		if (failed && !within(paid, sends))
			world.diverged(step, `paid ${sorted(paid)}, more than the model's ${sorted(sends)}`);
	} else if (!failed && spec.fault === 'none' && estimated !== paid.length) {
		world.diverged(step, `paid ${paid.length}, its estimate said ${estimated}`);
	}
	world.model.start(run);
	for (const value of paid)
		world.model.pay(run, value, run.testRun ? 3_600_000 : spec.hours * 3_600_000);
	world.model.settle(run.execution, failed ? 'failed' : 'done');
	if (failed && !world.smallBudget && kept.paid !== world.model.keptBy(run.execution))
		world.diverged(step, `kept ${kept.paid}, the model ${world.model.keptBy(run.execution)}`);
}

const failedRuns = new WeakMap<World, Array<{ spec: RunSpec; values: string[]; retry: boolean }>>();
const failedOf = (world: World) => failedRuns.get(world) ?? failedRuns.set(world, []).get(world)!;

async function runAtStore(
	world: World,
	spec: RunSpec,
	retryOf?: { values: string[]; retry: boolean },
) {
	const values = retryOf?.values ?? valuesOf(world, spec);
	const step = `${retryOf ? 'retry' : 'run'} ${JSON.stringify(spec)}`;
	const planned = modelRun(world, spec, values, retryOf !== undefined);
	const outcome = await storeRun(world, spec, values, retryOf ? 'retry' : spec.mode);
	check(world, step, planned, spec, outcome);
	countRun(world, spec);
	if (outcome.failed) failedOf(world).push({ spec, values, retry: retryOf !== undefined });
}

class StoreRun implements fc.AsyncCommand<World, World> {
	constructor(readonly spec: RunSpec) {}
	check = () => true;
	run = async (world: World) => await runAtStore(world, this.spec);
	toString = () => `storeRun(${JSON.stringify(this.spec)})`;
}

class StoreRetry implements fc.AsyncCommand<World, World> {
	constructor(
		readonly target: number,
		readonly toggleRepeats: boolean,
		readonly quota: number | undefined,
	) {}
	check = () => true;
	async run(world: World) {
		const failed = failedOf(world);
		if (failed.length === 0) return;
		const target = failed[failed.length - 1 - (this.target % failed.length)];
		const spec: RunSpec = {
			...target.spec,
			repeatsOnce: this.toggleRepeats ? !target.spec.repeatsOnce : target.spec.repeatsOnce,
			retryOnFail: false,
			fault: this.quota === undefined ? 'none' : 'quota',
			quota: this.quota ?? 0,
		};
		await runAtStore(world, spec, target);
		world.coverage.retries++;
		if (target.retry) world.coverage.retriesOfRetries++;
		if (this.toggleRepeats) world.coverage.optionsChangedBeforeRetry++;
	}
	toString = () =>
		`storeRetry(${JSON.stringify([this.target, this.toggleRepeats, this.quota ?? null])})`;
}

/** Two executions at the same time: the second runs whole while the first is half-way (or between its tries). */
class StoreOverlap implements fc.AsyncCommand<World, World> {
	constructor(
		readonly a: RunSpec,
		readonly b: RunSpec,
	) {}
	check = () => true;
	async run(world: World) {
		const [valuesA, valuesB] = [valuesOf(world, this.a), valuesOf(world, this.b)];
		const [plannedA, plannedB] = [
			modelRun(world, this.a, valuesA, false),
			modelRun(world, this.b, valuesB, false),
		];
		let outcomeB: Outcome | undefined;
		const outcomeA = await storeRun(world, this.a, valuesA, this.a.mode, async () => {
			outcomeB = await storeRun(world, this.b, valuesB, this.b.mode);
		});
		outcomeB ??= await storeRun(world, this.b, valuesB, this.b.mode);
		const step = `overlap ${JSON.stringify([this.a, this.b])}`;
		check(world, step, plannedA, this.a, outcomeA);
		check(world, step, plannedB, this.b, outcomeB);
		for (const [spec, outcome, values] of [
			[this.a, outcomeA, valuesA],
			[this.b, outcomeB, valuesB],
		] as const) {
			countRun(world, spec);
			if (outcome.failed) failedOf(world).push({ spec, values, retry: false });
		}
		world.coverage.overlapping++;
	}
	toString = () => `storeOverlap(${JSON.stringify(this.a)}, ${JSON.stringify(this.b)})`;
}

class StoreAdvance implements fc.AsyncCommand<World, World> {
	constructor(readonly minutes: number) {}
	check = () => true;
	run = async (world: World) => {
		world.advance(this.minutes);
		world.coverage.clockMoved++;
	};
	toString = () => `storeAdvance(${this.minutes})`;
}

/** A history at the store's level: the same kinds of step as the full stack's but a result file's (no store in it). */
export const storeHistoryArbitrary = historiesOf({
	run: (spec) => new StoreRun(spec),
	retry: (target, toggle, quota) => new StoreRetry(target, toggle, quota),
	overlap: (a, b) => new StoreOverlap(a, b),
	advance: (minutes) => new StoreAdvance(minutes),
});
