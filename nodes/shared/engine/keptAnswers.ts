import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';

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
 * Answers are kept per workflow, node (id, type and version) and credential (the key's identity:
 * another key, or another Base URL, never sees them), under the request key by which Send Repeated
 * Values Once matches requests (requestKey.ts). Only answers are kept: a request that failed is
 * sent again by the next try, which is what Retry On Fail is for.
 *
 * Bounded: at most KEPT_ANSWERS_BUDGET of them in the process, counted by size, oldest dropped
 * first; a shelf is dropped when n8n's tries of the node are over and it ended normally (its
 * answers are in its output), and none outlives KEEP_FOR_RETRY_MS. The lint rules for n8n Cloud
 * forbid timers, so expiry is checked whenever a node opens the store.
 */

/** Memory the process gives kept answers, counted by the size of what is kept. */
export const KEPT_ANSWERS_BUDGET = 64 * 1024 * 1024;

/** How long answers of a failed run wait for a Retry of its execution. */
export const KEEP_FOR_RETRY_MS = 60 * 60 * 1000;

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
}

/** The kept answers of one scope: the tries of a node in one execution, or a failed run's for a retry. */
interface Shelf {
	id: string;
	answers: Map<string, KeptAnswer>;
	/** Runs of the node in this execution that opened it (a try shelf): n8n's try number. */
	tries: number;
	expiresAt: number;
}

const shelves = new Map<string, Shelf>();
/** Every kept answer, oldest first (a Set keeps insertion order): what the budget drops first. */
const byAge = new Set<KeptAnswer>();
let sizeKept = 0;
let budget = KEPT_ANSWERS_BUDGET;

/** Where a reused answer came from, for the hint. */
export interface ReuseCounts {
	/** From an earlier try of this node in this execution (Retry On Fail). */
	fromTry: number;
	/** From the failed execution this one retries. */
	fromRetry: number;
}

/**
 * One run of a node's use of the store: it takes what an earlier try (or the failed execution it
 * retries) answered, files what it answers itself, and on finishing says what becomes of them.
 */
export class AnswerKeeping {
	readonly reused: ReuseCounts = { fromTry: 0, fromRetry: 0 };

	/** Occurrences of each request so far, when repeats are each sent (Send Repeated Values Once off). */
	private readonly occurrences = new Map<string, number>();

	private constructor(
		private readonly tryShelf: Shelf,
		private readonly retryShelf: Shelf | undefined,
		private readonly retryShelfId: string,
		private readonly moreTries: boolean,
		/** The node's Retry On Fail: n8n may run it again within this execution. */
		readonly retryOnFail: boolean,
	) {}

	/**
	 * The store as this run of the node uses it, or undefined when n8n will never run the same work
	 * again: with either Continue setting and Retry On Fail off, n8n keeps the node's output, whatever
	 * it holds, and does not retry it.
	 */
	static open(ctx: IExecuteFunctions, credentialIdentity: string): AnswerKeeping | undefined {
		const node = ctx.getNode();
		const mode = ctx.getMode?.();
		const retryOnFail = node.retryOnFail === true;
		if (!retryOnFail && ctx.continueOnFail() && mode !== 'retry') return undefined;
		// A process given no memory for them keeps nothing (the bench's run without keeping).
		if (budget <= 0) return undefined;
		const now = Date.now();
		dropExpired(now);
		const scope = [ctx.getWorkflow().id ?? '', node.id || node.name, `${node.type}@${node.typeVersion}`, credentialIdentity].join('\n');
		const tryId = `try\n${ctx.getExecutionId()}\n${scope}`;
		let tryShelf = shelves.get(tryId);
		if (!tryShelf) {
			tryShelf = { id: tryId, answers: new Map(), tries: 0, expiresAt: now + KEEP_FOR_RETRY_MS };
			shelves.set(tryId, tryShelf);
		}
		tryShelf.tries++;
		const retryId = `retry\n${scope}`;
		// Only a Retry of an execution takes a failed run's answers: a new run of the workflow asks afresh.
		const retryShelf = mode === 'retry' ? shelves.get(retryId) : undefined;
		const moreTries = retryOnFail && tryShelf.tries < triesOf(node);
		return new AnswerKeeping(tryShelf, retryShelf, retryId, moreTries, retryOnFail);
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

	has(key: string | undefined): boolean {
		return key !== undefined && (this.tryShelf.answers.has(key) || this.retryShelf?.answers.has(key) === true);
	}

	/** A kept answer for `key`, as the unit's own copy, or undefined: the unit is sent. */
	take(key: string | undefined): INodeExecutionData[] | undefined {
		if (key === undefined) return undefined;
		const fromTry = this.tryShelf.answers.get(key);
		const kept = fromTry ?? this.retryShelf?.answers.get(key);
		if (!kept) return undefined;
		this.reused[fromTry ? 'fromTry' : 'fromRetry']++;
		const copies = kept.answered.map(copyItem);
		for (const name of kept.besideKeys ?? []) for (const copy of copies) delete copy.json[name];
		return copies;
	}

	/**
	 * Files an answer this run paid for, for a next try or a retry. `beside`: what the engine will
	 * put into the answer's JSON for its output item (a CSV row's columns), left out when reused.
	 */
	keep(key: string | undefined, answered: INodeExecutionData[], beside?: IDataObject): void {
		if (key === undefined || this.tryShelf.answers.has(key)) return;
		// The row's columns the engine then writes into the answer's JSON are held with it.
		const size = sizeOf(key, answered) + (beside ? JSON.stringify(beside).length : 0);
		if (size > budget) return;
		const kept: KeptAnswer = { keptBy: this, shelf: this.tryShelf, key, answered, size, besideKeys: beside && Object.keys(beside) };
		this.tryShelf.answers.set(key, kept);
		byAge.add(kept);
		sizeKept += size;
		while (sizeKept > budget) {
			const oldest = byAge.values().next().value as KeptAnswer;
			// A run does not push out an answer it may still take (an earlier try's, or the failed
			// execution's it retries): the new answer is the one not kept.
			if (oldest.keptBy !== this && (oldest.shelf === this.tryShelf || oldest.shelf === this.retryShelf)) {
				forget(kept);
				return;
			}
			forget(oldest);
		}
	}

	/**
	 * The run is over. Returns how many answers stay for a Retry of the execution (0 when they stay
	 * for n8n's next try of the node, or are dropped).
	 * - It returned output: n8n keeps it, so nothing stays, unless Retry On Fail will run the node
	 *   again because the first item is an error item.
	 * - It threw (or was stopped): the next try takes the answers; after the last try they stay for
	 *   a Retry of the execution, for an hour.
	 */
	finish(result: { output: INodeExecutionData[][] } | 'threw'): number {
		if (result === 'threw') {
			if (this.moreTries) return 0;
			return this.shelveForRetry();
		}
		const firstItem = result.output[0]?.[0];
		if (this.retryOnFail && this.moreTries && firstItem?.json?.error !== undefined) return 0;
		dropShelf(this.tryShelf);
		// A retry that ended normally has its answers in its output.
		if (this.retryShelf) dropShelf(this.retryShelf);
		return 0;
	}

	/** The try shelf's answers join the workflow node's retry shelf, which lives an hour from now. */
	private shelveForRetry(): number {
		let retryShelf = shelves.get(this.retryShelfId);
		if (!retryShelf) {
			retryShelf = { id: this.retryShelfId, answers: new Map(), tries: 0, expiresAt: 0 };
			shelves.set(this.retryShelfId, retryShelf);
		}
		retryShelf.expiresAt = Date.now() + KEEP_FOR_RETRY_MS;
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
		if (retryShelf.answers.size === 0) shelves.delete(retryShelf.id);
		return retryShelf.answers.size;
	}
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
	for (const shelf of shelves.values()) if (shelf.expiresAt <= now) dropShelf(shelf);
}

/** What the store holds now: for the bench and the tests of its bounds. */
export function keptAnswersHeld(): { answers: number; size: number; shelves: number } {
	return { answers: byAge.size, size: sizeKept, shelves: shelves.size };
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
