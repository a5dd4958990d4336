import type { IBinaryData, IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';

import { copyItem } from './runLedger';

/**
 * Answers a node has paid for, kept in this process for the next time n8n runs the same work.
 *
 * n8n runs a node again with the same input in two ways, and without this the package would pay
 * again for every answer it already had:
 * - Retry On Fail (the node's Settings): n8n-core's WorkflowExecute runs the node up to `maxTries`
 *   times while it throws, and, with the setting on, while the first item of its first output
 *   carries `json.error` (so a file whose first row is empty runs every try, whatever changes).
 *   The tries share the execution id and the node.
 * - Retry of a failed execution (the executions list, either choice): a new execution in mode
 *   `retry`, of the same workflow, that runs the failed node again from its stored input. n8n
 *   kept no output of the failed node, so its paid answers exist only here.
 *
 * And a person runs the same work again on purpose: while building a workflow, Execute workflow
 * (or Execute step, or a test webhook: n8n's `manual` mode) is clicked again and again on the same
 * test data. Answers a test run paid for are reused by the node's next test runs for an hour
 * (Reuse Answers of Test Runs, on by default). Production runs (every other mode) take none of
 * them; they reuse earlier production runs' answers only when the node's Reuse Answers For (Hours)
 * asks for it.
 *
 * Answers are kept per workflow, node (id, type and version) and credential (the key's identity:
 * another key, or another Base URL, never sees them), under the request key by which Send Repeated
 * Values Once matches requests (requestKey.ts). Only answers are kept: a request that failed is
 * sent again by the next try, which is what Retry On Fail is for.
 *
 * Bounded: at most KEPT_ANSWERS_BUDGET of them in the process, counted by size, oldest dropped
 * first, never one a running retry may still take; a try shelf is dropped when n8n's tries of the
 * node are over and it ended normally (its answers are in its output), and no answer outlives
 * its time. The lint rules for n8n Cloud forbid timers, so expiry is checked whenever a node
 * opens the store, and again when an answer is taken.
 */

/** Memory the process gives kept answers, counted by the size of what is kept. */
export const KEPT_ANSWERS_BUDGET = 64 * 1024 * 1024;

/** How long answers of a failed run wait for a Retry of its execution. */
export const KEEP_FOR_RETRY_MS = 60 * 60 * 1000;

/** How long a test run's answers serve the node's next test runs. */
export const REUSE_TEST_RUNS_MS = 60 * 60 * 1000;

const HOUR_MS = 60 * 60 * 1000;

/**
 * What the node's Options ask of one item's requests beyond n8n's own retries:
 * `testRuns` (Reuse Answers of Test Runs) in `manual` mode, `hours` (Reuse Answers For (Hours),
 * 0 for never) in every other mode.
 */
export interface ReusePolicy {
	testRuns: boolean;
	hours: number;
}

/** What one kept answer holds and costs; `shelf` and `key` say where it is filed. */
interface KeptAnswer {
	/** The run that paid for it. */
	keptBy: AnswerKeeping;
	shelf: Shelf;
	key: string;
	answered: INodeExecutionData[];
	/** The keys the engine puts beside the answer in its output item (a CSV row's): not the answer's. */
	besideKeys?: string[];
	size: number;
	/** When it was paid for (the store's clock), for the hint and for Reuse Answers For (Hours). */
	paidAt: number;
	/** On a reuse shelf: when it stops serving. */
	expiresAt: number;
}

/**
 * The kept answers of one scope: the tries of a node in one execution, a failed run's for a retry,
 * or a node's answers for its next runs (`reuse`: test runs' or production runs').
 */
interface Shelf {
	id: string;
	answers: Map<string, KeptAnswer>;
	/** Runs of the node in this execution that opened it (a try shelf): n8n's try number. */
	tries: number;
	expiresAt: number;
	reuse?: 'testRuns' | 'production';
}

const shelves = new Map<string, Shelf>();
/** Every kept answer, oldest first (a Set keeps insertion order): what the budget drops first. */
const byAge = new Set<KeptAnswer>();
let sizeKept = 0;
let budget = KEPT_ANSWERS_BUDGET;
/** The earliest time an answer on a reuse shelf expires: before it, no shelf needs a look. */
let nextReuseExpiry = Number.POSITIVE_INFINITY;

/** The store's clock: the tests move it to see answers expire without waiting. */
let clock: () => number = () => Date.now();

/**
 * Where take() would take an answer from: an earlier try of this node in this execution, the
 * failed execution this one retries, earlier test runs, or earlier production runs.
 */
export type ReuseSource = 'try' | 'retry' | 'testRuns' | 'earlierRuns';

/** How a run opens the store: an estimate (Estimate Credits Only) only looks. */
export interface OpenOptions {
	/**
	 * The run sends nothing: it registers no try, creates no shelf, keeps nothing, drops nothing
	 * (expired answers are passed over, not forgotten) and changes no answer's place in the
	 * eviction order. It asks only sourceOf().
	 */
	estimate?: boolean;
}

/** Where a reused answer came from, for the hint and the summary. */
export interface ReuseCounts {
	/** From an earlier try of this node in this execution (Retry On Fail). */
	fromTry: number;
	/** From the failed execution this one retries. */
	fromRetry: number;
	/** From earlier test runs of the node (manual mode). */
	fromTestRuns: number;
	/** From earlier production runs of the node (Reuse Answers For (Hours)). */
	fromEarlierRuns: number;
}

/** When the reused answers of earlier runs were paid for, and by how many executions. */
export interface ReuseAges {
	executions: number;
	/** Milliseconds since the oldest and the newest of them was paid for, by the store's clock. */
	oldestAgo: number;
	newestAgo: number;
}

/**
 * One run of a node's use of the store: it takes what an earlier try (or the failed execution it
 * retries, or an earlier run the Options allow) answered, files what it answers itself, and on
 * finishing says what becomes of them.
 */
export class AnswerKeeping {
	readonly reused: ReuseCounts = { fromTry: 0, fromRetry: 0, fromTestRuns: 0, fromEarlierRuns: 0 };

	/** Occurrences of each request so far, when repeats are each sent (Send Repeated Values Once off). */
	private readonly occurrences = new Map<string, number>();

	private readonly reuseSources = new Set<string>();

	private oldestPaidAt = Number.POSITIVE_INFINITY;

	private newestPaidAt = Number.NEGATIVE_INFINITY;

	private constructor(
		/** Undefined when n8n will never run the same work again in this execution or a retry of it. */
		private readonly tryShelf: Shelf | undefined,
		private readonly retryShelf: Shelf | undefined,
		private readonly retryShelfId: string,
		/** Where this node's answers for its next runs are filed: test runs' or production runs'. */
		private readonly reuseShelfId: string,
		private readonly testRun: boolean,
		readonly executionId: string,
		private readonly moreTries: boolean,
		/** The node's Retry On Fail: n8n may run it again within this execution. */
		readonly retryOnFail: boolean,
		/** Some item of this run takes answers of the node's earlier runs. */
		private readonly reuses: boolean,
		/** An estimate: it looks and changes nothing (OpenOptions). */
		private readonly estimate = false,
	) {}

	/**
	 * The store as this run of the node uses it, or undefined when nothing would be taken or kept:
	 * with either Continue setting and Retry On Fail off, n8n keeps the node's output, whatever it
	 * holds, and does not retry it; and no item's Options reuse answers of earlier runs.
	 */
	static open(ctx: IExecuteFunctions, credentialIdentity: string, reuseAsked: ReusePolicy[] = [], how: OpenOptions = {}): AnswerKeeping | undefined {
		const node = ctx.getNode();
		const mode = ctx.getMode?.();
		// Only n8n's `manual` mode is a person building the workflow (Execute workflow, Execute step,
		// a test webhook); every other mode is production: trigger, webhook, retry, cli, integrated...
		const testRun = mode === 'manual';
		const retryOnFail = node.retryOnFail === true;
		const forRetries = retryOnFail || !ctx.continueOnFail() || mode === 'retry';
		const reuses = reuseAsked.some((policy) => reusesWith(policy, testRun));
		if (!forRetries && !reuses) return undefined;
		// A process given no memory for them keeps nothing (the bench's run without keeping).
		if (budget <= 0) return undefined;
		const now = clock();
		const scope = [ctx.getWorkflow().id ?? '', node.id || node.name, `${node.type}@${node.typeVersion}`, credentialIdentity].join('\n');
		const executionId = String(ctx.getExecutionId());
		const reuseShelfId = `${testRun ? 'testRuns' : 'production'}\n${scope}`;
		if (how.estimate) {
			// The shelves a real run would take from, as they are: none made, none dropped.
			const live = (shelf: Shelf | undefined) => (shelf && shelf.expiresAt > now ? shelf : undefined);
			const tryShelf = forRetries ? live(shelves.get(`try\n${executionId}\n${scope}`)) : undefined;
			const retryShelf = mode === 'retry' ? live(shelves.get(`retry\n${scope}`)) : undefined;
			return new AnswerKeeping(tryShelf, retryShelf, `retry\n${scope}`, reuseShelfId, testRun, executionId, false, retryOnFail, reuses, true);
		}
		dropExpired(now);
		let tryShelf: Shelf | undefined;
		if (forRetries) {
			const tryId = `try\n${executionId}\n${scope}`;
			tryShelf = shelves.get(tryId);
			if (!tryShelf) {
				tryShelf = { id: tryId, answers: new Map(), tries: 0, expiresAt: now + KEEP_FOR_RETRY_MS };
				shelves.set(tryId, tryShelf);
			}
			tryShelf.tries++;
		}
		const retryId = `retry\n${scope}`;
		// Only a Retry of an execution takes a failed run's answers: a new run of the workflow asks afresh.
		const retryShelf = mode === 'retry' ? shelves.get(retryId) : undefined;
		const moreTries = retryOnFail && (tryShelf?.tries ?? 1) < triesOf(node);
		return new AnswerKeeping(tryShelf, retryShelf, retryId, reuseShelfId, testRun, executionId, moreTries, retryOnFail, reuses);
	}

	/**
	 * The key under which a unit's answer is kept: the request key when repeated values share one
	 * answer; with Send Repeated Values Once off, each repeat has its own answer, so the key also
	 * counts the occurrence (the third item asking the same takes the third answer).
	 */
	keyFor(key: string | undefined, sharedByRepeats: boolean): string | undefined {
		if (key === undefined || sharedByRepeats) return key;
		const occurrence = (this.occurrences.get(key) ?? 0) + 1;
		this.occurrences.set(key, occurrence);
		return `${key}\n#${occurrence}`;
	}

	/**
	 * Where take() would take the answer for `key` from now, or undefined when the unit would be
	 * sent. No side effect: nothing is taken, forgotten or moved (an estimate asks it).
	 */
	sourceOf(key: string | undefined, policy: ReusePolicy): ReuseSource | undefined {
		const kept = this.find(key, policy, false);
		if (!kept) return undefined;
		const fromThisExecution = kept.keptBy.executionId === this.executionId;
		if (kept.shelf === this.tryShelf || (kept.shelf.reuse !== undefined && fromThisExecution)) return 'try';
		if (kept.shelf === this.retryShelf) return 'retry';
		return this.testRun ? 'testRuns' : 'earlierRuns';
	}

	has(key: string | undefined, policy: ReusePolicy): boolean {
		return this.find(key, policy) !== undefined;
	}

	/**
	 * A kept answer for `key`, as the unit's own copy, or undefined: the unit is sent. A file kept
	 * by another execution is stored again for this one (n8n may delete the other's files, and in
	 * filesystem mode an item holds only a reference); one that can no longer be read is not reused.
	 */
	async take(ctx: IExecuteFunctions, key: string | undefined, policy: ReusePolicy): Promise<{ answered: INodeExecutionData[]; fromTry: boolean } | undefined> {
		const kept = this.find(key, policy);
		if (!kept) return undefined;
		const copies = kept.answered.map(copyItem);
		for (const name of kept.besideKeys ?? []) for (const copy of copies) delete copy.json[name];
		const fromThisExecution = kept.keptBy.executionId === this.executionId;
		if (!fromThisExecution && kept.shelf.reuse) {
			try {
				for (const copy of copies) await storeFilesAgain(ctx, copy);
			} catch {
				forget(kept);
				return undefined;
			}
		}
		const fromTry = kept.shelf === this.tryShelf || (kept.shelf.reuse !== undefined && fromThisExecution);
		if (fromTry) this.reused.fromTry++;
		else if (kept.shelf === this.retryShelf) this.reused.fromRetry++;
		else {
			this.reused[this.testRun ? 'fromTestRuns' : 'fromEarlierRuns']++;
			this.reuseSources.add(kept.keptBy.executionId);
			this.oldestPaidAt = Math.min(this.oldestPaidAt, kept.paidAt);
			this.newestPaidAt = Math.max(this.newestPaidAt, kept.paidAt);
		}
		return { answered: copies, fromTry };
	}

	/** When the answers reused from earlier runs (test or production) were paid, or undefined. */
	reuseAges(): ReuseAges | undefined {
		if (this.reuseSources.size === 0) return undefined;
		const now = clock();
		return {
			executions: this.reuseSources.size,
			oldestAgo: Math.max(0, now - this.oldestPaidAt),
			newestAgo: Math.max(0, now - this.newestPaidAt),
		};
	}

	/**
	 * Files an answer this run paid for, for a next try or a retry (`forTries`), and for the node's
	 * next runs when the item's Options ask for it. `beside`: what the engine will put into the
	 * answer's JSON for its output item (a CSV row's columns), left out when reused.
	 */
	keep(key: string | undefined, answered: INodeExecutionData[], beside: IDataObject | undefined, forTries: boolean, policy: ReusePolicy): void {
		if (key === undefined || this.estimate) return;
		if (reusesWith(policy, this.testRun)) {
			// The node's next runs see a copy: the output's items go on to other nodes, which may change
			// them. Answers are JSON (an HTTP body, n8n stores items as JSON): a JSON copy is the
			// smallest in memory (a structured clone held 28% more per email record).
			const expiresAt = clock() + (this.testRun ? REUSE_TEST_RUNS_MS : policy.hours * HOUR_MS);
			this.file(this.reuseShelf(), key, answered.map(jsonCopy), undefined, expiresAt);
			return;
		}
		if (forTries && this.tryShelf && !this.tryShelf.answers.has(key)) this.file(this.tryShelf, key, answered, beside, this.tryShelf.expiresAt);
	}

	private file(shelf: Shelf, key: string, answered: INodeExecutionData[], beside: IDataObject | undefined, expiresAt: number): void {
		// The row's columns the engine then writes into the answer's JSON are held with it.
		const size = sizeOf(key, answered) + (beside ? JSON.stringify(beside).length : 0);
		if (size > budget) return;
		const previous = shelf.answers.get(key);
		if (previous) forget(previous);
		const kept: KeptAnswer = { keptBy: this, shelf, key, answered, size, besideKeys: beside && Object.keys(beside), paidAt: clock(), expiresAt };
		shelf.answers.set(key, kept);
		if (shelf.reuse) {
			shelf.expiresAt = Math.max(shelf.expiresAt, expiresAt);
			nextReuseExpiry = Math.min(nextReuseExpiry, expiresAt);
		}
		this.add(kept);
	}

	private add(kept: KeptAnswer): void {
		byAge.add(kept);
		sizeKept += kept.size;
		while (sizeKept > budget) {
			const oldest = byAge.values().next().value as KeptAnswer;
			// A run does not push out an answer it may still take (an earlier try's, the failed
			// execution's it retries, an earlier run's of the node): the new answer is the one not
			// kept. Else a run over more values than the budget holds would drop, value by value,
			// the very answers it was about to reuse.
			if (oldest.keptBy !== this && (oldest.shelf === this.tryShelf || oldest.shelf === this.retryShelf || (this.reuses && oldest.shelf.id === this.reuseShelfId))) {
				forget(kept);
				return;
			}
			forget(oldest);
		}
	}

	private reuseShelf(): Shelf {
		let shelf = shelves.get(this.reuseShelfId);
		if (!shelf) {
			shelf = { id: this.reuseShelfId, answers: new Map(), tries: 0, expiresAt: 0, reuse: this.testRun ? 'testRuns' : 'production' };
			shelves.set(this.reuseShelfId, shelf);
		}
		return shelf;
	}

	/** The answer this run may take for `key`: an earlier try's, the failed run's, or an earlier run's the Options allow. */
	private find(key: string | undefined, policy: ReusePolicy, forgetExpired = true): KeptAnswer | undefined {
		if (key === undefined) return undefined;
		const kept = this.tryShelf?.answers.get(key) ?? this.retryShelf?.answers.get(key);
		if (kept) return kept;
		const reused = shelves.get(this.reuseShelfId)?.answers.get(key);
		if (!reused) return undefined;
		// An earlier try of this execution filed it there: Retry On Fail takes it, whatever the window.
		if (reused.keptBy.executionId === this.executionId) return reused;
		const now = clock();
		if (reused.expiresAt <= now) {
			if (forgetExpired && !this.estimate) forget(reused);
			return undefined;
		}
		if (!reusesWith(policy, this.testRun)) return undefined;
		// Production runs take what is younger than this item's window (the setting may have shrunk).
		if (!this.testRun && reused.paidAt <= now - policy.hours * HOUR_MS) return undefined;
		return reused;
	}

	/**
	 * The run is over. Returns how many answers stay for a Retry of the execution (0 when they stay
	 * for n8n's next try of the node, or are dropped).
	 * - It returned output: n8n keeps it, so nothing stays, unless Retry On Fail will run the node
	 *   again because the first item is an error item.
	 * - It threw (or was stopped): the next try takes the answers; after the last try they stay for
	 *   a Retry of the execution, for an hour.
	 * Answers filed for the node's next runs stay on their shelf, whatever happened.
	 */
	finish(result: { output: INodeExecutionData[][] } | 'threw'): number {
		if (this.estimate) return 0;
		if (result === 'threw') {
			if (this.moreTries) return 0;
			return this.shelveForRetry();
		}
		const firstItem = result.output[0]?.[0];
		if (this.retryOnFail && this.moreTries && firstItem?.json?.error !== undefined) return 0;
		if (this.tryShelf) dropShelf(this.tryShelf);
		// A retry that ended normally has its answers in its output.
		if (this.retryShelf) dropShelf(this.retryShelf);
		return 0;
	}

	/**
	 * The answers this execution paid for (its try shelf's, and those it filed for the node's next
	 * runs) join the workflow node's retry shelf, which lives an hour from now.
	 */
	private shelveForRetry(): number {
		if (!this.tryShelf) return 0;
		let retryShelf = shelves.get(this.retryShelfId);
		if (!retryShelf) {
			retryShelf = { id: this.retryShelfId, answers: new Map(), tries: 0, expiresAt: 0 };
			shelves.set(this.retryShelfId, retryShelf);
		}
		retryShelf.expiresAt = clock() + KEEP_FOR_RETRY_MS;
		for (const kept of this.tryShelf.answers.values()) {
			if (retryShelf.answers.has(kept.key)) {
				forget(kept);
				continue;
			}
			kept.shelf = retryShelf;
			retryShelf.answers.set(kept.key, kept);
		}
		this.tryShelf.answers.clear();
		shelves.delete(this.tryShelf.id);
		// Filed for the node's next runs, and for the retry too: the same items, counted once more.
		for (const kept of shelves.get(this.reuseShelfId)?.answers.values() ?? []) {
			if (kept.keptBy.executionId !== this.executionId || retryShelf.answers.has(kept.key)) continue;
			const forRetry: KeptAnswer = { ...kept, shelf: retryShelf, expiresAt: retryShelf.expiresAt };
			retryShelf.answers.set(kept.key, forRetry);
			this.add(forRetry);
		}
		if (retryShelf.answers.size === 0) shelves.delete(retryShelf.id);
		return retryShelf.answers.size;
	}
}

/** An item's own copy, its JSON copied through text, its files' descriptions copied. */
function jsonCopy(item: INodeExecutionData): INodeExecutionData {
	const copy: INodeExecutionData = { json: JSON.parse(JSON.stringify(item.json)) as IDataObject };
	if (item.binary) copy.binary = Object.fromEntries(Object.entries(item.binary).map(([name, data]) => [name, { ...data }]));
	return copy;
}

/** Whether a job's Options take and keep answers of earlier runs in this mode. */
function reusesWith(policy: ReusePolicy, testRun: boolean): boolean {
	return testRun ? policy.testRuns : policy.hours > 0;
}

/**
 * A reused item's files, stored again for this execution: the bytes read through n8n's binary
 * helpers (from the item in memory mode, from n8n's store in filesystem mode).
 */
async function storeFilesAgain(ctx: IExecuteFunctions, item: INodeExecutionData): Promise<void> {
	if (!item.binary) return;
	for (const [name, file] of Object.entries(item.binary)) {
		if (!file.id) continue;
		const bytes = await ctx.helpers.binaryToBuffer(await ctx.helpers.getBinaryStream(file.id));
		item.binary[name] = { ...(await ctx.helpers.prepareBinaryData(bytes, file.fileName, file.mimeType)), ...pick(file) };
	}
}

/** What an item's file says of itself besides its bytes (kept as the answer gave it). */
function pick(file: IBinaryData): Partial<IBinaryData> {
	const kept: Partial<IBinaryData> = {};
	if (file.fileName !== undefined) kept.fileName = file.fileName;
	if (file.fileExtension !== undefined) kept.fileExtension = file.fileExtension;
	if (file.mimeType !== undefined) kept.mimeType = file.mimeType;
	return kept;
}

/** n8n-core's number of tries of a node with Retry On Fail on (WorkflowExecute: 2 to 5, default 3). */
function triesOf(node: INode): number {
	return Math.min(5, Math.max(2, node.maxTries || 3));
}

/**
 * An answer's size: its JSON as text, and its files (bytes held in the item in n8n's memory mode,
 * a reference to n8n's binary store otherwise), plus the entry itself.
 */
function sizeOf(key: string, answered: INodeExecutionData[]): number {
	let size = 200 + key.length;
	for (const item of answered) {
		size += JSON.stringify(item.json).length;
		for (const file of Object.values(item.binary ?? {})) size += 200 + file.data.length;
	}
	return size;
}

function forget(kept: KeptAnswer): void {
	if (!byAge.delete(kept)) return;
	sizeKept -= kept.size;
	const { shelf } = kept;
	if (shelf.answers.get(kept.key) === kept) shelf.answers.delete(kept.key);
	if (shelf.answers.size === 0 && shelf.tries === 0) shelves.delete(shelf.id);
}

function dropShelf(shelf: Shelf): void {
	shelves.delete(shelf.id);
	for (const kept of shelf.answers.values()) forget(kept);
	shelf.answers.clear();
}

function dropExpired(now: number): void {
	const lookAtReuse = now >= nextReuseExpiry;
	if (lookAtReuse) nextReuseExpiry = Number.POSITIVE_INFINITY;
	for (const shelf of shelves.values()) {
		if (!shelf.reuse) {
			if (shelf.expiresAt <= now) dropShelf(shelf);
			continue;
		}
		if (!lookAtReuse) continue;
		for (const kept of shelf.answers.values()) {
			if (kept.expiresAt <= now) forget(kept);
			else nextReuseExpiry = Math.min(nextReuseExpiry, kept.expiresAt);
		}
	}
}

/**
 * What the store holds now, for the bench and the tests of its bounds: every answer, and those
 * kept for n8n's retries (tries of a node, Retries of executions) apart from those kept for the
 * nodes' next runs (test runs, Reuse Answers For (Hours)).
 */
export function keptAnswersHeld(): { answers: number; size: number; shelves: number; forRetries: number; forNextRuns: number } {
	let forNextRuns = 0;
	for (const kept of byAge) if (kept.shelf.reuse) forNextRuns++;
	return { answers: byAge.size, size: sizeKept, shelves: shelves.size, forRetries: byAge.size - forNextRuns, forNextRuns };
}

/**
 * Sets the process's budget (the bench and the tests of eviction use a small one; 0 turns keeping
 * off); returns the previous one. Lowering it drops the oldest answers at once.
 */
export function setKeptAnswersBudget(bytes: number): number {
	const previous = budget;
	budget = bytes;
	while (sizeKept > budget) forget(byAge.values().next().value as KeptAnswer);
	return previous;
}

/**
 * Sets the store's clock (the tests move time forward to see answers expire without waiting);
 * without an argument, the real one again.
 */
export function setKeptAnswersClock(now?: () => number): void {
	clock = now ?? (() => Date.now());
}

/** Drops every kept answer (the tests start each case from an empty store). */
export function dropKeptAnswers(): void {
	for (const shelf of [...shelves.values()]) dropShelf(shelf);
	nextReuseExpiry = Number.POSITIVE_INFINITY;
}
